/** Label key / value rules for NodePool templates and requirements (docs/karpenter-reference.md §1.1). */
import { RestrictedLabelDomains, RestrictedLabels, WellKnownLabels } from '../labels';

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why a string is not a qualified name (`[prefix/]name`), or undefined when it is. */
export function qualifiedNameProblem(key: string): string | undefined {
  if (key === '') return 'key must not be empty';
  const parts = key.split('/');
  if (parts.length > 2) return `${JSON.stringify(key)} is not a qualified name (at most one "/")`;
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN_RE.test(prefix))) {
    return `${JSON.stringify(key)} has an invalid prefix (must be a DNS subdomain)`;
  }
  if (name.length > 63 || !NAME_RE.test(name)) {
    return `${JSON.stringify(key)} is not a qualified name (≤63 alphanumerics, "-", "_", "." , starting and ending alphanumeric)`;
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !VALUE_RE.test(value)) {
    return `${JSON.stringify(value)} is not a valid label value (≤63 alphanumerics, "-", "_", ".", starting and ending alphanumeric)`;
  }
  return undefined;
}

/** AWS well-known keys that labels.ts does not list (docs/karpenter-reference.md §1.4: capacity-reservation-*). */
const EXTRA_WELL_KNOWN = new Set([
  'karpenter.k8s.aws/capacity-reservation-id',
  'karpenter.k8s.aws/capacity-reservation-type',
  'karpenter.k8s.aws/capacity-reservation-interruptible',
  'karpenter.k8s.aws/instance-capability-flex',
]);

const domainOf = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');

/**
 * Why a NodePool label or requirement key may not be used, or undefined when it may — Karpenter v1's CRD rules
 * (label domain "karpenter.sh" except its well-known labels, "karpenter.sh/nodepool", "kubernetes.io/hostname")
 * plus the AWS provider's restricted domain "karpenter.k8s.aws" (its well-known labels excepted).
 */
function restrictedLabelProblem(key: string): string | undefined {
  if (RestrictedLabels.has(key)) return `label ${JSON.stringify(key)} is restricted`;
  const domain = domainOf(key);
  for (const restricted of RestrictedLabelDomains) {
    if (domain === restricted || domain.endsWith(`.${restricted}`)) {
      if (WellKnownLabels.has(key) || EXTRA_WELL_KNOWN.has(key)) return undefined;
      return `label domain ${JSON.stringify(restricted)} is restricted (only its well-known labels may be used)`;
    }
  }
  // Karpenter v1's CRD no longer restricts the kubernetes.io and k8s.io domains (only karpenter.sh, the
  // nodepool label and kubernetes.io/hostname); labels the kubelet refuses to set on itself are stripped
  // from its user data instead (shared/adapters/aws/ec2/user-data.ts).
  return undefined;
}

export function labelKeyProblem(key: string): string | undefined {
  return qualifiedNameProblem(key) ?? restrictedLabelProblem(key);
}
