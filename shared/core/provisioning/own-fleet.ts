/**
 * The fleet nodewright would run for today's workload: what it would launch, from nothing, for every pod the
 * NodePools' nodes run and every pod pending now (pods on nodes no NodePool launched stay where they are). A shadow
 * deployment samples it beside the fleet that runs (`nodewright audit --shadow`).
 */
import type { InstanceType } from '../instance-types/types';
import { Label } from '../model/labels';
import type { ClusterSnapshot } from '../ports';
import { solve } from '../scheduling/solve';
import { schedulingInputFromSnapshot } from './from-snapshot';

export function ownFleetCost(snapshot: ClusterSnapshot, instanceTypes: Record<string, InstanceType[]>): { perHour: number; nodes: number; unplaced: number } {
  const managed = new Set(snapshot.nodes.filter((n) => n.labels[Label.nodePool]).map((n) => n.name));
  const pods = snapshot.pods
    .filter(
      (p) =>
        p.owner?.kind !== 'DaemonSet' &&
        p.owner?.kind !== 'Node' &&
        p.phase !== 'Succeeded' &&
        p.phase !== 'Failed' &&
        p.deletionTimestamp === undefined &&
        (!p.nodeName || managed.has(p.nodeName)),
    )
    .map(({ nodeName: _bound, ...pod }) => pod);
  const plan = solve(schedulingInputFromSnapshot({ ...snapshot, nodes: [], nodeClaims: [] }, instanceTypes, { pendingPods: pods }));
  const perHour = plan.nodeClaims.reduce((sum, c) => sum + c.price, 0);
  return { perHour: Math.round(perHour * 1e4) / 1e4, nodes: plan.nodeClaims.length, unplaced: plan.unschedulable.length };
}
