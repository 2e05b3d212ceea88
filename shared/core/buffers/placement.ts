/**
 * Where the buffers' chunks stand now, for disruption (Karpenter's emptiness and consolidation see virtual pods the
 * same way): each virtual pod placed on the free room of a running node, as the scheduler would, and bound there in
 * the pass's view — so a node holding a chunk is not empty, and consolidating it must find the chunk room elsewhere.
 */
import type { InstanceType } from '../instance-types/types';
import type { ClusterSnapshot } from '../ports/cluster-client';
import { schedulingInputFromSnapshot } from '../provisioning/from-snapshot';
import { solve } from '../scheduling/solve';
import { virtualPods } from './virtual-pods';

export function withBoundBufferPods(snapshot: ClusterSnapshot, instanceTypes: Record<string, InstanceType[]>): ClusterSnapshot {
  const virtual = virtualPods(snapshot.capacityBuffers);
  if (virtual.length === 0) return snapshot;
  const plan = solve(schedulingInputFromSnapshot(snapshot, instanceTypes, { pendingPods: virtual }));
  const nodes = new Set(snapshot.nodes.map((n) => n.name));
  const bound = plan.existingPlacements
    .filter((e) => nodes.has(e.node))
    .flatMap((e) => e.pods.map((p) => ({ ...p, nodeName: e.node, phase: 'Running' as const, ready: true, unschedulable: false })));
  return bound.length ? { ...snapshot, pods: [...snapshot.pods, ...bound] } : snapshot;
}
