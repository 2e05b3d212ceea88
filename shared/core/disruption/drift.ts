/**
 * Drift detection (docs/karpenter-reference.md §6.7): NodePoolDrifted and NodeClassDrift by hash, RequirementsDrifted by the
 * claim's labels, and the cloud provider's own reasons (AMI, subnet, security groups) passed in precomputed.
 */
import type { NodeSelectorRequirement } from '../model/kube';
import type { EC2NodeClass, NodePool } from '../model/karpenter';
import { NodeClassHashVersion, nodeClassHash, NodePoolHashVersion, nodePoolHash } from '../model/hash';
import { Annotation } from '../model/labels';
import type { NodeView } from './candidates';
import type { EpochMs } from '../time';

function violates(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && !values.includes(value);
    case 'NotIn':
      return value !== undefined && values.includes(value);
    case 'DoesNotExist':
      return value !== undefined;
    case 'Exists':
      return false;
    case 'Gt':
    case 'Gte':
    case 'Lt':
    case 'Lte': {
      if (value === undefined) return false;
      const v = Number(value);
      const b = Number(values[0]);
      if (!Number.isFinite(v) || !Number.isFinite(b)) return true;
      return r.operator === 'Gt' ? !(v > b) : r.operator === 'Gte' ? !(v >= b) : r.operator === 'Lt' ? !(v < b) : !(v <= b);
    }
  }
}

/**
 * The drift reason of a managed node, or undefined. Hashes are compared only when the claim records nodewright's hash
 * version (as Karpenter, which needs both hash annotations and equal versions): a claim another hash wrote is re-stamped, not drifted.
 */
export function driftReason(
  v: NodeView,
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
  external: Record<string, string> | undefined,
): string | undefined {
  const a = v.claim.annotations;
  const poolHash = a[Annotation.nodePoolHash];
  if (poolHash !== undefined && a[Annotation.nodePoolHashVersion] === NodePoolHashVersion && poolHash !== (pool.hash ?? nodePoolHash(pool)))
    return 'NodePoolDrifted';
  const labels = { ...v.node.labels, ...v.claim.labels };
  const bad = pool.template.requirements.find((r) => violates(r, labels[r.key]));
  if (bad) return 'RequirementsDrifted';
  const classHash = a[Annotation.nodeClassHash];
  if (
    nodeClass &&
    classHash !== undefined &&
    a[Annotation.nodeClassHashVersion] === NodeClassHashVersion &&
    classHash !== (nodeClass.hash ?? nodeClassHash(nodeClass))
  )
    return 'NodeClassDrift';
  const ext = external?.[v.claim.name];
  if (ext) return ext;
  const cond = v.claim.status.conditions.find((c) => c.type === 'Drifted' && c.status === 'True');
  return cond ? (cond.reason ?? 'Drifted') : undefined;
}

/** When the node was first seen drifted (the Drifted condition's transition), for ordering. */
export function driftedSince(v: NodeView, nowMs: EpochMs): EpochMs {
  return v.claim.status.conditions.find((c) => c.type === 'Drifted' && c.status === 'True')?.lastTransitionTime ?? nowMs;
}
