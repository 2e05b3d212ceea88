import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { stringify } from 'yaml';
import { formatResourceList } from '../../../core/model/resources';
import type { AmiFamily, KubeletConfiguration } from '../../../core/model/karpenter';
import type { Taint } from '../../../core/model/kube';
import { TaintKey } from '../../../core/model/labels';
import { NodeClassNotReadyError } from '../../../core/errors';

interface ClusterBootstrap {
  name: string;
  endpoint: string;
  /** Base64 CA bundle. */
  certificateAuthority: string;
  /** Service CIDR; nodeadm requires it. */
  serviceCidr?: string;
}

export interface UserDataOptions {
  amiFamily: AmiFamily;
  cluster: ClusterBootstrap;
  /** Labels the kubelet registers the node with. */
  labels: Record<string, string>;
  /** Taints the kubelet registers with; `karpenter.sh/unregistered:NoExecute` is always added. */
  taints: Taint[];
  kubelet?: KubeletConfiguration;
  /** The node class's own userData, merged (ours wins). */
  custom?: string;
}

const BOUNDARY = '//';
const UNREGISTERED: Taint = { key: TaintKey.unregistered, effect: 'NoExecute' };

const withUnregistered = (taints: Taint[]): Taint[] =>
  taints.some((t) => t.key === UNREGISTERED.key && t.effect === UNREGISTERED.effect) ? taints : [...taints, UNREGISTERED];
const taintFlag = (t: Taint): string => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
const sortedEntries = (r: Record<string, string>) => Object.entries(r).sort(([a], [b]) => a.localeCompare(b));

/**
 * Labels the kubelet may not set on its own Node (the NodeRestriction admission plugin refuses them, and the
 * node would never register): the `kubernetes.io`, `k8s.io` and `node-restriction.kubernetes.io` domains and
 * their sub-domains — the set Karpenter's RejectForbiddenLabels strips. The registration step puts the claim's
 * labels on the Node through the API afterwards, so none is lost.
 */
function kubeletSettableLabels(labels: Record<string, string>): Record<string, string> {
  const restricted = (key: string): boolean => {
    const domain = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
    return ['kubernetes.io', 'k8s.io'].some((d) => domain === d || domain.endsWith(`.${d}`));
  };
  return Object.fromEntries(Object.entries(labels).filter(([k]) => !restricted(k)));
}

function kubeletFlags(opts: UserDataOptions): string[] {
  const flags: string[] = [];
  const labels = sortedEntries(kubeletSettableLabels(opts.labels))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  if (labels) flags.push(`--node-labels=${labels}`);
  flags.push(`--register-with-taints=${withUnregistered(opts.taints).map(taintFlag).join(',')}`);
  return flags;
}

/** The parts of a user's MIME document (or the whole text as one part when it is not MIME). */
function mimeParts(custom: string | undefined, defaultType: string): string[] {
  if (!custom?.trim()) return [];
  const m = /boundary="?([^"\r\n;]+)"?/i.exec(custom);
  if (!/^MIME-Version:/im.test(custom) || !m) return [`Content-Type: ${defaultType}\n\n${custom.trim()}\n`];
  const sep = `--${m[1]}`;
  return custom
    .split(sep)
    .slice(1)
    .map((p) => p.replace(/^\r?\n/, ''))
    .filter((p) => p.trim() && !p.startsWith('--'))
    .map((p) => p.trimEnd() + '\n');
}

function mime(parts: string[]): string {
  const body = parts.map((p) => `--${BOUNDARY}\n${p}\n`).join('');
  return `MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="${BOUNDARY}"\n\n${body}--${BOUNDARY}--\n`;
}

function kubeletConfig(k: KubeletConfiguration | undefined): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  if (!k) return c;
  if (k.maxPods !== undefined) c.maxPods = k.maxPods;
  if (k.podsPerCore !== undefined) c.podsPerCore = k.podsPerCore;
  if (k.clusterDNS?.length) c.clusterDNS = k.clusterDNS;
  // So the node's allocatable is the one the scheduler planned with (core/instance-types allocatable).
  if (k.kubeReserved && Object.keys(k.kubeReserved).length) c.kubeReserved = formatResourceList(k.kubeReserved);
  if (k.systemReserved && Object.keys(k.systemReserved).length) c.systemReserved = formatResourceList(k.systemReserved);
  if (k.evictionHard) c.evictionHard = k.evictionHard;
  if (k.evictionSoft) c.evictionSoft = k.evictionSoft;
  if (k.evictionSoftGracePeriod) c.evictionSoftGracePeriod = k.evictionSoftGracePeriod;
  if (k.evictionMaxPodGracePeriod !== undefined) c.evictionMaxPodGracePeriod = k.evictionMaxPodGracePeriod;
  if (k.imageGCHighThresholdPercent !== undefined) c.imageGCHighThresholdPercent = k.imageGCHighThresholdPercent;
  if (k.imageGCLowThresholdPercent !== undefined) c.imageGCLowThresholdPercent = k.imageGCLowThresholdPercent;
  if (k.cpuCFSQuota !== undefined) c.cpuCFSQuota = k.cpuCFSQuota;
  return c;
}

/** AL2023: a MIME document whose last part is nodeadm's NodeConfig (later parts win in nodeadm). */
export function al2023UserData(opts: UserDataOptions): string {
  if (!opts.cluster.serviceCidr)
    throw new NodeClassNotReadyError(`AL2023 user data needs the cluster service CIDR of "${opts.cluster.name}" (DescribeCluster kubernetesNetworkConfig)`);
  const nodeConfig = {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        name: opts.cluster.name,
        apiServerEndpoint: opts.cluster.endpoint,
        certificateAuthority: opts.cluster.certificateAuthority,
        cidr: opts.cluster.serviceCidr,
      },
      kubelet: { config: kubeletConfig(opts.kubelet), flags: kubeletFlags(opts) },
    },
  };
  const ours = `Content-Type: application/node.eks.aws\n\n${stringify(nodeConfig, { lineWidth: 0 })}`;
  return mime([...mimeParts(opts.custom, 'application/node.eks.aws'), ours]);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** AL2: a MIME document whose last part runs /etc/eks/bootstrap.sh. */
export function al2UserData(opts: UserDataOptions): string {
  const k = opts.kubelet;
  const extra = [...kubeletFlags(opts)];
  if (k?.maxPods !== undefined) extra.push(`--max-pods=${k.maxPods}`);
  if (k?.podsPerCore !== undefined) extra.push(`--pods-per-core=${k.podsPerCore}`);
  const args = [
    shellQuote(opts.cluster.name),
    `--apiserver-endpoint ${shellQuote(opts.cluster.endpoint)}`,
    `--b64-cluster-ca ${shellQuote(opts.cluster.certificateAuthority)}`,
    ...(k?.clusterDNS?.[0] ? [`--dns-cluster-ip ${shellQuote(k.clusterDNS[0])}`] : []),
    ...(k?.maxPods !== undefined ? ['--use-max-pods false'] : []),
    `--kubelet-extra-args ${shellQuote(extra.join(' '))}`,
  ];
  const script = `Content-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n/etc/eks/bootstrap.sh ${args.join(' \\\n  ')}\n`;
  return mime([...mimeParts(opts.custom, 'text/x-shellscript; charset="us-ascii"'), script]);
}

type TomlTable = Record<string, unknown>;
const isTable = (v: unknown): v is TomlTable => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** `base` with `over` merged in, table by table (over's scalars and arrays win). */
function mergeTables(base: TomlTable, over: TomlTable): TomlTable {
  const out: TomlTable = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isTable(v) && isTable(out[k]) ? mergeTables(out[k] as TomlTable, v) : v;
  return out;
}

/** nodewright's `settings.kubernetes` for Bottlerocket. */
function bottlerocketKubernetes(opts: UserDataOptions): TomlTable {
  const k = opts.kubelet;
  const kube: TomlTable = {
    'api-server': opts.cluster.endpoint,
    'cluster-certificate': opts.cluster.certificateAuthority,
    'cluster-name': opts.cluster.name,
  };
  if (k?.maxPods !== undefined) kube['max-pods'] = k.maxPods;
  if (k?.podsPerCore !== undefined) kube['pods-per-core'] = k.podsPerCore;
  if (k?.clusterDNS?.[0]) kube['cluster-dns-ip'] = k.clusterDNS[0];
  if (k?.cpuCFSQuota !== undefined) kube['cpu-cfs-quota-enforced'] = k.cpuCFSQuota;
  if (k?.imageGCHighThresholdPercent !== undefined) kube['image-gc-high-threshold-percent'] = k.imageGCHighThresholdPercent;
  if (k?.imageGCLowThresholdPercent !== undefined) kube['image-gc-low-threshold-percent'] = k.imageGCLowThresholdPercent;
  if (k?.kubeReserved && Object.keys(k.kubeReserved).length) kube['kube-reserved'] = formatResourceList(k.kubeReserved);
  if (k?.systemReserved && Object.keys(k.systemReserved).length) kube['system-reserved'] = formatResourceList(k.systemReserved);
  if (k?.evictionHard) kube['eviction-hard'] = { ...k.evictionHard };
  if (k?.evictionSoft) kube['eviction-soft'] = { ...k.evictionSoft };
  if (k?.evictionSoftGracePeriod) kube['eviction-soft-grace-period'] = { ...k.evictionSoftGracePeriod };
  if (k?.evictionMaxPodGracePeriod !== undefined) kube['eviction-max-pod-grace-period'] = k.evictionMaxPodGracePeriod;
  kube['node-labels'] = Object.fromEntries(sortedEntries(kubeletSettableLabels(opts.labels)));
  const taints: Record<string, string[]> = {};
  for (const t of withUnregistered(opts.taints)) (taints[t.key] ??= []).push(`${t.value ?? ''}:${t.effect}`);
  kube['node-taints'] = taints;
  return kube;
}

/**
 * Bottlerocket: TOML settings. The node class's own TOML is parsed and merged, not concatenated (a repeated
 * `[settings.kubernetes]` table would make Bottlerocket reject the whole document): its settings stay, nodewright's
 * cluster connection, kubelet settings, labels and taints win where both set a key, and its labels and taints
 * are kept beside ours — as Karpenter merges them. Unparsable TOML is a node-class error, named.
 */
export function bottlerocketUserData(opts: UserDataOptions): string {
  let custom: TomlTable = {};
  if (opts.custom?.trim()) {
    try {
      custom = parseToml(opts.custom) as TomlTable;
    } catch (e) {
      throw new NodeClassNotReadyError(
        `EC2NodeClass userData is not valid TOML for Bottlerocket: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
      );
    }
  }
  const merged = mergeTables(custom, { settings: { kubernetes: bottlerocketKubernetes(opts) } });
  return stringifyToml(merged) + '\n';
}

/** User data for the node class's AMI family; Custom passes the node class's userData through unchanged. */
export function renderUserData(opts: UserDataOptions): string {
  switch (opts.amiFamily) {
    case 'AL2023':
      return al2023UserData(opts);
    case 'AL2':
      return al2UserData(opts);
    case 'Bottlerocket':
      return bottlerocketUserData(opts);
    case 'Custom':
      return opts.custom ?? '';
    default:
      throw new NodeClassNotReadyError(`amiFamily ${opts.amiFamily}: nodewright does not render Windows user data yet`);
  }
}
