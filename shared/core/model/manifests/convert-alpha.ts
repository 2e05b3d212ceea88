/**
 * Older Karpenter APIs → v1 JSON (docs/karpenter-reference.md §1.3): karpenter.sh/v1alpha5 Provisioner and
 * karpenter.k8s.aws/v1alpha1 AWSNodeTemplate. The output is plain v1 JSON that then goes through the same
 * validation as a hand-written v1 object.
 */
import { fail, normalizeLabelMap, num, obj, str, stringMap, type Json, type ManifestContext } from './context';

/** [v1 path prefix, path prefix in the user's document] pairs, so errors point at what the user wrote. */
export type PathMap = (readonly [string, string])[];

export interface Converted {
  json: Json;
  warnings: string[];
  pathMap: PathMap;
}

export interface ConvertedProvisioner {
  nodePool: Json;
  /** The EC2NodeClass generated from an inline `provider` block. */
  nodeClass?: Json;
  /** kubeletConfiguration, to be moved onto the referenced node class. */
  kubelet?: Json;
  /** Where the kubelet block sits in the user's document. */
  kubeletPath?: string;
  warnings: string[];
  pathMap: PathMap;
  /** pathMap for the node class generated from an inline provider. */
  nodeClassPathMap?: PathMap;
}

const nodeTemplatePaths = (prefix: string): PathMap => [
  ['spec.subnetSelectorTerms', `${prefix}.subnetSelector`],
  ['spec.securityGroupSelectorTerms', `${prefix}.securityGroupSelector`],
  ['spec.amiSelectorTerms', `${prefix}.amiSelector`],
  ['spec', prefix],
];

/** v1 consolidateAfter for pools converted from consolidation.enabled / WhenUnderutilized (its fixed 15 s wait). */
export const UNDERUTILIZED_CONSOLIDATE_AFTER = '15s';

const ALIAS_BY_FAMILY: Record<string, string> = {
  AL2: 'al2',
  AL2023: 'al2023',
  Bottlerocket: 'bottlerocket',
  Windows2019: 'windows2019',
  Windows2022: 'windows2022',
  Windows2025: 'windows2025',
};

const pick = (m: Record<string, string>, ...keys: string[]): string | undefined => {
  for (const k of keys) if (m[k] !== undefined) return m[k];
  return undefined;
};
const list = (s: string | undefined): string[] =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const SPECIAL = /^aws(::|-)(ids|name|owners)$/;

/** An alpha selector map (`{tag: value, "aws::ids": "a,b"}`) → v1 selector terms. */
export function selectorTerms(raw: unknown, kind: 'subnet' | 'securityGroup' | 'ami'): Json[] {
  const m = stringMap(raw);
  const ids = list(pick(m, 'aws::ids', 'aws-ids'));
  if (ids.length) return ids.map((id) => ({ id }));
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (!SPECIAL.test(k)) tags[k] = v;
  const base: Json = {};
  if (Object.keys(tags).length) base.tags = tags;
  const name = pick(m, 'aws::name', 'aws-name');
  if (name !== undefined && kind !== 'subnet') base.name = name;
  const owners = kind === 'ami' ? list(pick(m, 'aws::owners', 'aws-owners')) : [];
  return owners.length ? owners.map((owner) => ({ ...base, owner })) : [base];
}

const COPIED_NODE_TEMPLATE_FIELDS = ['userData', 'tags', 'metadataOptions', 'blockDeviceMappings', 'detailedMonitoring', 'context', 'associatePublicIPAddress'];
const KNOWN_NODE_TEMPLATE_FIELDS = new Set([
  ...COPIED_NODE_TEMPLATE_FIELDS,
  'amiFamily',
  'amiSelector',
  'subnetSelector',
  'securityGroupSelector',
  'instanceProfile',
  'launchTemplate',
  'apiVersion',
  'kind',
]);

/** AWSNodeTemplate spec (or a Provisioner's inline `provider`) → EC2NodeClass v1 spec. */
function nodeTemplateSpecToV1(spec: Json, ctx: ManifestContext | undefined, path: string, warnings: string[], what: string): Json {
  if (spec.launchTemplate !== undefined)
    fail(ctx, `${path}.launchTemplate`, 'launchTemplate is not supported in v1; set amiSelectorTerms, userData and the other fields instead');
  for (const k of ['subnetSelector', 'securityGroupSelector'] as const) {
    if (!spec[k] || Object.keys(obj(spec[k])).length === 0) fail(ctx, `${path}.${k}`, `${k} is required`);
  }
  const amiFamily = str(spec.amiFamily) ?? 'AL2';
  if (amiFamily === 'Ubuntu') fail(ctx, `${path}.amiFamily`, 'amiFamily Ubuntu was dropped in v1; use Custom with an amiSelector');
  const out: Json = {
    amiFamily,
    subnetSelectorTerms: selectorTerms(spec.subnetSelector, 'subnet'),
    securityGroupSelectorTerms: selectorTerms(spec.securityGroupSelector, 'securityGroup'),
  };
  if (spec.amiSelector && Object.keys(obj(spec.amiSelector)).length) {
    out.amiSelectorTerms = selectorTerms(spec.amiSelector, 'ami');
  } else if (ALIAS_BY_FAMILY[amiFamily]) {
    out.amiSelectorTerms = [{ alias: `${ALIAS_BY_FAMILY[amiFamily]}@latest` }];
  } else {
    fail(ctx, `${path}.amiSelector`, `amiFamily ${amiFamily} needs an amiSelector`);
  }
  const profile = str(spec.instanceProfile);
  if (profile) out.instanceProfile = profile;
  else warnings.push(`${what}: no instanceProfile; v1 needs spec.role or spec.instanceProfile on the EC2NodeClass (alpha used the global default)`);
  for (const k of COPIED_NODE_TEMPLATE_FIELDS) if (spec[k] !== undefined) out[k] = spec[k];
  for (const k of Object.keys(spec)) if (!KNOWN_NODE_TEMPLATE_FIELDS.has(k)) warnings.push(`${what}: field ${path}.${k} is not supported and was ignored`);
  return out;
}

export function convertAwsNodeTemplate(o: Json, ctx?: ManifestContext): Converted {
  const metadata = obj(o.metadata);
  const name = str(metadata.name) ?? '';
  const warnings: string[] = [];
  const spec = nodeTemplateSpecToV1(obj(o.spec), ctx, 'spec', warnings, `AWSNodeTemplate ${name}`);
  return {
    json: { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { ...metadata, name }, spec },
    warnings,
    pathMap: nodeTemplatePaths('spec'),
  };
}

const KNOWN_PROVISIONER_FIELDS = new Set([
  'labels',
  'annotations',
  'taints',
  'startupTaints',
  'requirements',
  'kubeletConfiguration',
  'provider',
  'providerRef',
  'ttlSecondsAfterEmpty',
  'ttlSecondsUntilExpired',
  'consolidation',
  'limits',
  'weight',
]);

/** The node class a Provisioner launches with: generated from an inline `provider`, else its providerRef, else "default". */
function provisionerNodeClass(
  spec: Json,
  name: string,
  ctx: ManifestContext | undefined,
  warnings: string[],
  what: string,
): { nodeClassName: string; nodeClass?: Json } {
  if (spec.provider !== undefined) {
    return {
      nodeClassName: name,
      nodeClass: {
        apiVersion: 'karpenter.k8s.aws/v1',
        kind: 'EC2NodeClass',
        metadata: { name },
        spec: nodeTemplateSpecToV1(obj(spec.provider), ctx, 'spec.provider', warnings, what),
      },
    };
  }
  const ref = str(obj(spec.providerRef).name);
  if (ref) return { nodeClassName: ref };
  warnings.push(`${what}: no provider or providerRef; using EC2NodeClass "default"`);
  return { nodeClassName: 'default' };
}

/** ttlSecondsAfterEmpty / consolidation.enabled → v1 disruption; ttlSecondsUntilExpired → expireAfter. */
function provisionerDisruption(spec: Json, ctx: ManifestContext | undefined, consolidation: boolean): { disruption: Json; expireAfter: string } {
  const ttlEmpty = spec.ttlSecondsAfterEmpty;
  const disruption: Json = {};
  if (ttlEmpty !== undefined) {
    const secs = num(ttlEmpty);
    if (secs === undefined || secs < 0) fail(ctx, 'spec.ttlSecondsAfterEmpty', 'ttlSecondsAfterEmpty must be a whole number of seconds ≥ 0');
    Object.assign(disruption, { consolidationPolicy: 'WhenEmpty', consolidateAfter: `${secs}s` });
  } else if (consolidation) {
    Object.assign(disruption, { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: UNDERUTILIZED_CONSOLIDATE_AFTER });
  } else {
    Object.assign(disruption, { consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' });
  }
  let expireAfter = 'Never';
  if (spec.ttlSecondsUntilExpired !== undefined) {
    const secs = num(spec.ttlSecondsUntilExpired);
    if (secs === undefined || secs < 0) fail(ctx, 'spec.ttlSecondsUntilExpired', 'ttlSecondsUntilExpired must be a whole number of seconds ≥ 0');
    expireAfter = `${secs}s`;
  }
  return { disruption, expireAfter };
}

/** spec.limits.resources (or a bare spec.limits, read as resources with a warning), and where it was. */
function provisionerLimits(spec: Json, warnings: string[], what: string): { limits?: Json; limitsPath: string } {
  const limitsRaw = obj(spec.limits);
  if (limitsRaw.resources !== undefined) return { limits: obj(limitsRaw.resources), limitsPath: 'spec.limits.resources' };
  if (Object.keys(limitsRaw).length) {
    warnings.push(`${what}: spec.limits should be spec.limits.resources; read as resources`);
    return { limits: limitsRaw, limitsPath: 'spec.limits' };
  }
  return { limitsPath: 'spec.limits.resources' };
}

/** kubeletConfiguration without containerRuntime (gone in v1). */
function provisionerKubelet(spec: Json, warnings: string[], what: string): Json | undefined {
  if (spec.kubeletConfiguration === undefined) return undefined;
  const kubelet = { ...obj(spec.kubeletConfiguration) };
  if (kubelet.containerRuntime !== undefined) {
    delete kubelet.containerRuntime;
    warnings.push(`${what}: kubeletConfiguration.containerRuntime is gone in v1 (containerd only) and was dropped`);
  }
  return kubelet;
}

const provisionerPaths = (limitsPath: string): PathMap => [
  ['spec.template.spec.requirements', 'spec.requirements'],
  ['spec.template.spec.taints', 'spec.taints'],
  ['spec.template.spec.startupTaints', 'spec.startupTaints'],
  ['spec.template.metadata.labels', 'spec.labels'],
  ['spec.template.metadata.annotations', 'spec.annotations'],
  ['spec.template.spec.nodeClassRef', 'spec.providerRef'],
  ['spec.template.spec.expireAfter', 'spec.ttlSecondsUntilExpired'],
  ['spec.limits', limitsPath],
];

export function convertProvisioner(o: Json, ctx?: ManifestContext): ConvertedProvisioner {
  const metadata = obj(o.metadata);
  const name = str(metadata.name) ?? '';
  const spec = obj(o.spec);
  const what = `Provisioner ${name}`;
  const warnings: string[] = [];
  const consolidation = obj(spec.consolidation).enabled === true;
  if (consolidation && spec.ttlSecondsAfterEmpty !== undefined)
    fail(ctx, 'spec.ttlSecondsAfterEmpty', 'ttlSecondsAfterEmpty and consolidation.enabled are mutually exclusive');
  if (spec.provider !== undefined && spec.providerRef !== undefined) fail(ctx, 'spec.provider', 'provider and providerRef are mutually exclusive');
  for (const k of Object.keys(spec)) if (!KNOWN_PROVISIONER_FIELDS.has(k)) warnings.push(`${what}: field spec.${k} is not a Provisioner field and was ignored`);

  const { nodeClassName, nodeClass } = provisionerNodeClass(spec, name, ctx, warnings, what);
  const { disruption, expireAfter } = provisionerDisruption(spec, ctx, consolidation);
  const { limits, limitsPath } = provisionerLimits(spec, warnings, what);
  const kubelet = provisionerKubelet(spec, warnings, what);

  const templateMeta: Json = {};
  if (spec.labels) templateMeta.labels = normalizeLabelMap(stringMap(spec.labels));
  if (spec.annotations) templateMeta.annotations = spec.annotations;
  const templateSpec: Json = {
    requirements: Array.isArray(spec.requirements) ? spec.requirements : [],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName },
    expireAfter,
  };
  if (spec.taints !== undefined) templateSpec.taints = spec.taints;
  if (spec.startupTaints !== undefined) templateSpec.startupTaints = spec.startupTaints;
  const nodePoolSpec: Json = { template: { metadata: templateMeta, spec: templateSpec }, disruption };
  if (limits) nodePoolSpec.limits = limits;
  if (spec.weight !== undefined) nodePoolSpec.weight = spec.weight;
  const nodePool: Json = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { ...metadata, name }, spec: nodePoolSpec };
  const out: ConvertedProvisioner = { nodePool, warnings, pathMap: provisionerPaths(limitsPath) };
  if (nodeClass) {
    out.nodeClass = nodeClass;
    out.nodeClassPathMap = nodeTemplatePaths('spec.provider');
  }
  if (kubelet) {
    out.kubelet = kubelet;
    out.kubeletPath = 'spec.kubeletConfiguration';
  }
  return out;
}
