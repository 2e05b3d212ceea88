/** Builds the NodeClaim status for a merge patch: fields merged, conditions upserted by type. */
import type { EC2NodeClassStatus, NodeClaim, NodeClaimCondition, NodePoolStatus } from '../../core/model/karpenter';
import { formatResourceList } from '../../core/model/resources';
import { toRfc3339, type EpochMs } from '../../core/time';

type Json = Record<string, unknown>;

export type NodeClaimStatusPatch = Partial<Omit<NodeClaim['status'], 'conditions'>> & { conditions?: NodeClaimCondition[] };
export type NodePoolStatusPatch = Partial<NodePoolStatus> & { conditions: NodePoolStatus['conditions'] };
export type NodeClassStatusPatch = Partial<EC2NodeClassStatus> & { conditions: EC2NodeClassStatus['conditions'] };

/**
 * The complete new status (a merge patch replaces lists, so conditions are sent whole). A condition keeps its
 * lastTransitionTime when its status did not change; otherwise it gets the given time or `nowMs`.
 */
export function mergeClaimStatus(current: Json, patch: NodeClaimStatusPatch, nowMs: EpochMs): Json {
  const out: Json = { ...current };
  for (const k of ['nodeName', 'providerID', 'imageID'] as const) if (patch[k] !== undefined) out[k] = patch[k];
  if (patch.capacity) out.capacity = formatResourceList(patch.capacity);
  if (patch.allocatable) out.allocatable = formatResourceList(patch.allocatable);
  if (patch.lastPodEventTime !== undefined) out.lastPodEventTime = toRfc3339(patch.lastPodEventTime);
  if (patch.conditions) {
    const conds = ((current.conditions ?? []) as Json[]).map((c) => ({ ...c }));
    for (const c of patch.conditions) {
      const i = conds.findIndex((x) => x.type === c.type);
      const prev = i >= 0 ? conds[i] : undefined;
      const changed = !prev || prev.status !== c.status;
      const next: Json = {
        type: c.type,
        status: c.status,
        lastTransitionTime:
          c.lastTransitionTime !== undefined ? toRfc3339(c.lastTransitionTime) : changed ? toRfc3339(nowMs) : (prev?.lastTransitionTime ?? toRfc3339(nowMs)),
        reason: c.reason ?? (changed ? c.type : (prev?.reason ?? c.type)),
        message: c.message ?? (changed ? '' : (prev?.message ?? '')),
      };
      if (i >= 0) conds[i] = next;
      else conds.push(next);
    }
    out.conditions = conds;
  }
  return out;
}

/** A NodePool's new status: resources and nodes replaced when given, conditions upserted as for NodeClaims. */
export function mergeNodePoolStatus(current: Json, patch: NodePoolStatusPatch, nowMs: EpochMs): Json {
  const out: Json = { ...current };
  if (patch.resources) out.resources = patch.resources;
  if (patch.nodes !== undefined) out.nodes = patch.nodes;
  const conditions = mergeClaimStatus(current, { conditions: patch.conditions }, nowMs).conditions;
  out.conditions = conditions;
  return out;
}

/** An EC2NodeClass's new status: resolved fields replaced when given (in Karpenter's JSON names), conditions upserted. */
export function mergeNodeClassStatus(current: Json, patch: NodeClassStatusPatch, nowMs: EpochMs): Json {
  const out: Json = { ...current };
  if (patch.subnets) out.subnets = patch.subnets.map((s) => ({ id: s.id, zone: s.zone, ...(s.zoneID ? { zoneID: s.zoneID } : {}) }));
  if (patch.securityGroups) out.securityGroups = patch.securityGroups.map((g) => ({ id: g.id, ...(g.name ? { name: g.name } : {}) }));
  if (patch.amis)
    out.amis = patch.amis.map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}), ...(a.requirements ? { requirements: a.requirements } : {}) }));
  if (patch.instanceProfile) out.instanceProfile = patch.instanceProfile;
  out.conditions = mergeClaimStatus(current, { conditions: patch.conditions }, nowMs).conditions;
  return out;
}
