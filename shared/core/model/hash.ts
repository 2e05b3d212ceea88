/**
 * Drift hashes (docs/karpenter-reference.md §1.1, §6.7): a NodeClaim records the hash of its NodePool template and of its
 * EC2NodeClass at launch; a different hash later means the node drifted (NodePoolDrifted / NodeClassDrift).
 * FNV-1a 64 over canonical JSON (object keys sorted, undefined dropped), printed as an unsigned decimal.
 */
import type { EC2NodeClass, NetworkInterface, NodePool } from './karpenter';

/**
 * The hash versions nodewright writes beside its hashes, bumped whenever the hashed field set changes. They are never
 * Karpenter's ("v3", "v6"): Karpenter's hash is hashstructure over its Go types, not this one, and both sides compare
 * hashes only at equal versions. A claim Karpenter launched is therefore re-stamped with nodewright's hash when
 * nodewright adopts it (reconcileHashStamps), not drifted; and back under Karpenter, its hash controllers re-stamp
 * nodewright's claims the same way (docs/deploy.md "Moving from a running Karpenter").
 */
export const NodePoolHashVersion = 'nodewright-v1';
export const NodeClassHashVersion = 'nodewright-v1';

const utf8 = new TextEncoder();

/**
 * FNV-1a 64 over the UTF-8 bytes of `text`, in two 32-bit halves (no BigInt per byte: a disruption pass hashes every
 * node's pods). The prime is 2^40 + 435, so h × prime = h × 435 + (low half << 8) in the high half.
 */
export function fnv1a64(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const step = (b: number) => {
    const x = (lo ^ b) >>> 0;
    const low = x * 435;
    lo = low >>> 0;
    hi = (hi * 435 + Math.floor(low / 0x1_0000_0000) + ((x << 8) >>> 0)) >>> 0;
  };
  // ASCII text (the common case) is its own UTF-8.
  if (/^[\x00-\x7f]*$/.test(text)) for (let i = 0; i < text.length; i++) step(text.charCodeAt(i));
  else for (const b of utf8.encode(text)) step(b);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** JSON with object keys sorted at every level; undefined members are dropped, so absent == undefined. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Hash of what drives NodePoolDrifted: template labels, annotations, taints, startupTaints, nodeClassRef,
 * expireAfter and terminationGracePeriod. Requirements (RequirementsDrifted is separate), weight, limits
 * and disruption settings are left out, so changing them never drifts nodes.
 */
export function nodePoolHash(pool: Pick<NodePool, 'template'>): string {
  const t = pool.template;
  return fnv1a64(
    canonicalJson({
      labels: t.labels,
      annotations: t.annotations,
      taints: t.taints,
      startupTaints: t.startupTaints,
      nodeClassRef: { group: t.nodeClassRef.group, kind: t.nodeClassRef.kind, name: t.nodeClassRef.name },
      expireAfter: t.expireAfter,
      terminationGracePeriod: t.terminationGracePeriod,
    }),
  );
}

/**
 * Hash of what drives NodeClassDrift: userData, tags, block device mappings, metadata options, kubelet,
 * role / instanceProfile, amiFamily, detailed monitoring, public IP, instance store policy, network interfaces and context.
 * Selector terms are left out (AMI, subnet and security-group drift compare resolved status instead), as
 * are status, name and uid.
 */
const byCardAndDevice = (a: NetworkInterface, b: NetworkInterface) => a.networkCardIndex - b.networkCardIndex || a.deviceIndex - b.deviceIndex;

export function nodeClassHash(nodeClass: EC2NodeClass): string {
  return fnv1a64(
    canonicalJson({
      amiFamily: nodeClass.amiFamily,
      userData: nodeClass.userData,
      tags: nodeClass.tags,
      blockDeviceMappings: nodeClass.blockDeviceMappings,
      metadataOptions: nodeClass.metadataOptions,
      kubelet: nodeClass.kubelet,
      role: nodeClass.role,
      instanceProfile: nodeClass.instanceProfile,
      detailedMonitoring: nodeClass.detailedMonitoring,
      associatePublicIPAddress: nodeClass.associatePublicIPAddress,
      instanceStorePolicy: nodeClass.instanceStorePolicy,
      // A set, as Karpenter hashes it (SlicesAsSets): the order the interfaces are listed in drifts nothing.
      networkInterfaces: nodeClass.networkInterfaces && [...nodeClass.networkInterfaces].sort(byCardAndDevice),
      context: nodeClass.context,
    }),
  );
}
