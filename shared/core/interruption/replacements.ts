/**
 * Replacement capacity for an interrupted node, planned before anything is evicted (nodewright, beyond
 * Karpenter, which deletes the claim and lets the evicted pods wait for the next provisioning batch). The
 * node's pods are scheduled onto the rest of the cluster with the node excluded: pods that fit on existing
 * nodes or in-flight claims need nothing; the new claims that hold at least one of them are the replacements.
 * Claims that only hold other pending pods are left to the provisioner. Pure: the caller brings the snapshot (the
 * interruption function brings only the node's pods and the cluster's configuration: replacement-inputs.ts).
 */
import type { InstanceType } from '../instance-types/types';
import { NodeClassHashVersion, nodeClassHash } from '../model/hash';
import type { NodeClaim } from '../model/karpenter';
import { podKey, type Pod } from '../model/kube';
import { Annotation } from '../model/labels';
import { isReschedulable } from '../disruption/pods';
import { nodeClaimName } from '../lifecycle/names';
import { plannedClaimToNodeClaim, schedulingInputFromSnapshot } from '../provisioning/from-snapshot';
import { planCheapest, type LpLoader } from '../scheduling/optimize/plan-cheapest';
import type { ClusterSnapshot } from '../ports/cluster-client';
import type { EpochMs } from '../time';
import type { ResourceList } from '../model/resources';

export interface InterruptionReplacementPlan {
  /** The interrupted node (undefined when the claim never registered one). */
  nodeName?: string;
  /** Pods that must move. */
  moving: number;
  /** New NodeClaims to launch now, named deterministically from the claim and the event. */
  replacements: NodeClaim[];
  /** Pods that fit nowhere, with the scheduler's reason (they are drained anyway: the instance is going). */
  unschedulable: { pod: string; reason: string }[];
}

/**
 * Plans the replacements for `nodeClaimName`'s node. `seed` (the event id) and `eventTimeMs` make the names
 * stable across duplicate deliveries of the same event. The snapshot may hold only what the plan needs
 * (replacement-inputs.ts): then `poolUsage` gives the pools' usage for their limits. Planned as the provisioner plans
 * (planCheapest): `loadLp` brings the LP solver when the node's pods are a group large enough for it.
 */
export async function planInterruptionReplacements(
  snapshot: ClusterSnapshot,
  instanceTypesByPool: Record<string, InstanceType[]>,
  claimName: string,
  seed: string,
  eventTimeMs: EpochMs,
  opts: { poolUsage?: Record<string, ResourceList>; loadLp?: LpLoader } = {},
): Promise<InterruptionReplacementPlan> {
  const claim = snapshot.nodeClaims.find((c) => c.name === claimName);
  const nodeName =
    claim?.status.nodeName ?? snapshot.nodes.find((n) => claim?.status.providerID !== undefined && n.providerID === claim.status.providerID)?.name;
  if (!nodeName) return { moving: 0, replacements: [], unschedulable: [] };
  const moving: Pod[] = snapshot.pods
    .filter((p) => p.nodeName === nodeName && isReschedulable(p))
    .map((p) => ({ ...p, nodeName: undefined, phase: 'Pending' as const }));
  if (moving.length === 0) return { nodeName, moving: 0, replacements: [], unschedulable: [] };
  const base = schedulingInputFromSnapshot(snapshot, instanceTypesByPool);
  const movingUids = new Set(moving.map((p) => p.uid));
  // The node's pods count once, as moving (a tainted node's pods are already among the base's reschedulable pods).
  const others = base.pods.filter((p) => !movingUids.has(p.uid));
  const input = {
    ...base,
    pods: [...others, ...moving],
    ...(opts.poolUsage ? { poolUsage: opts.poolUsage } : {}),
    options: { ...base.options, excludeNodes: new Set([nodeName]) },
  };
  const { plan } = await planCheapest(input, opts.loadLp ?? (async () => undefined));
  const chosen = plan.nodeClaims.filter((c) => c.pods.some((p) => movingUids.has(p.uid)));
  const replacements = chosen.map((planned, i) => {
    const pool = snapshot.nodePools.find((p) => p.name === planned.nodePool);
    const name = nodeClaimName(planned.nodePool, [claimName, seed, ...planned.pods.map((p) => p.uid)], eventTimeMs, i);
    const out = plannedClaimToNodeClaim(planned, name, eventTimeMs, pool);
    const cls = snapshot.nodeClasses.find((c) => c.name === planned.nodeClassRef.name);
    if (cls) {
      out.annotations[Annotation.nodeClassHash] = cls.hash ?? nodeClassHash(cls);
      out.annotations[Annotation.nodeClassHashVersion] = NodeClassHashVersion;
    }
    return out;
  });
  const unschedulable = [...plan.unschedulable, ...plan.ignored]
    .filter((u) => movingUids.has(u.pod.uid))
    .map((u) => ({ pod: podKey(u.pod), reason: u.reason }));
  return { nodeName, moving: moving.length, replacements, unschedulable };
}
