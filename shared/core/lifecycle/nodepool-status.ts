/**
 * NodePool status as Karpenter's nodepool.counter, nodepool.validation and nodepool.readiness controllers write
 * it, so `kubectl get nodepools` shows NODES and READY:
 * - `status.resources`: cpu, memory, pods, ephemeral-storage of the pool's NodeClaims (capacity of the node once
 *   registered, else of the claim once launched) and `nodes`, their count; `status.nodes` the same count;
 * - conditions ValidationSucceeded (False, NodePoolValidationFailed, for a pool the functions cannot read),
 *   NodeClassReady (NodeClassNotFound / NodeClassTerminating / the node class's own Ready reason) and Ready, True
 *   when both are.
 * Written only when something changed, so the controller's watch does not wake itself up.
 */
import type { ClusterObjects } from '../ports';
import type { NodePool, NodePoolStatus, StatusCondition } from '../model/karpenter';
import { Label } from '../model/labels';
import { formatResource } from '../model/quantity';
import type { LifecycleDeps } from './deps';
import { invalidObjectEvent, recordEvents } from './events';

type Condition = StatusCondition;

const COUNTED = ['cpu', 'memory', 'pods', 'ephemeral-storage'] as const;

const trueCondition = (type: string): Condition => ({ type, status: 'True', reason: type, message: '' });

/** The pool's resources and node count, from its NodeClaims. */
function resourcesOf(pool: string, snapshot: ClusterObjects): { resources: Record<string, string>; nodes: number } {
  const nodes = new Map(snapshot.nodes.map((n) => [n.name, n]));
  const sum: Record<string, number> = Object.fromEntries(COUNTED.map((k) => [k, 0]));
  let count = 0;
  for (const c of snapshot.nodeClaims) {
    if (c.labels[Label.nodePool] !== pool) continue;
    count++;
    const capacity = (c.status.nodeName ? nodes.get(c.status.nodeName)?.capacity : undefined) ?? c.status.capacity ?? {};
    for (const k of COUNTED) sum[k] += capacity[k] ?? 0;
  }
  const resources = Object.fromEntries(COUNTED.map((k) => [k, formatResource(k, sum[k])]));
  return { resources: { ...resources, nodes: String(count) }, nodes: count };
}

function nodeClassReady(pool: NodePool, snapshot: ClusterObjects): Condition {
  const nc = snapshot.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
  if (!nc) return { type: 'NodeClassReady', status: 'False', reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' };
  if (nc.deleting) return { type: 'NodeClassReady', status: 'False', reason: 'NodeClassTerminating', message: 'NodeClass is Terminating' };
  // Karpenter's readiness controller: a class whose Ready is unknown (no status written yet) is not ready. The
  // controller has garbage collection write a new class's status within seconds.
  if (!nc.ready || nc.ready.status === 'Unknown')
    return { type: 'NodeClassReady', status: 'False', reason: 'NodeClassReadinessUnknown', message: 'Node Class Readiness Unknown' };
  if (nc.ready.status === 'False')
    return { type: 'NodeClassReady', status: 'False', reason: nc.ready.reason || 'NodeClassNotReady', message: nc.ready.message };
  return trueCondition('NodeClassReady');
}

/** Ready is True when every other condition is; else False with the ones that are not (operatorpkg's root condition). */
export function withReady(conditions: Condition[]): Condition[] {
  const bad = conditions.filter((c) => c.status !== 'True');
  const ready: Condition =
    bad.length === 0
      ? trueCondition('Ready')
      : { type: 'Ready', status: 'False', reason: 'UnhealthyDependents', message: bad.map((c) => `${c.type}=${c.status}`).join(', ') };
  return [...conditions, ready];
}

/** What a valid pool's status should be. */
export function desiredNodePoolStatus(pool: NodePool, snapshot: ClusterObjects): NodePoolStatus {
  return { ...resourcesOf(pool.name, snapshot), conditions: withReady([trueCondition('ValidationSucceeded'), nodeClassReady(pool, snapshot)]) };
}

/** True when every wanted condition is among those written, with the same status, reason and message. */
export const sameConditions = (wanted: readonly Condition[], written: readonly Condition[] | undefined): boolean =>
  wanted.every((c) => written?.some((x) => x.type === c.type && x.status === c.status && x.reason === c.reason && x.message === c.message));

const sameStatus = (a: NodePoolStatus | undefined, b: NodePoolStatus): boolean => {
  if (!a || a.nodes !== b.nodes) return false;
  if (Object.keys(b.resources).some((k) => a.resources[k] !== b.resources[k])) return false;
  return sameConditions(b.conditions, a.conditions);
};

/**
 * Writes the status of every NodePool whose status is out of date, and marks the pools the functions cannot read
 * (snapshot.invalid) ValidationSucceeded=False with the reason naming the field. Returns the pools written.
 * Best effort: a failed write is logged and retried on the next round.
 */
export async function reconcileNodePoolStatuses(deps: Pick<LifecycleDeps, 'cluster' | 'log'>, snapshot: ClusterObjects): Promise<string[]> {
  const written: string[] = [];
  const write = async (name: string, status: Partial<NodePoolStatus> & { conditions: Condition[] }) => {
    try {
      if (await deps.cluster.patchNodePoolStatus(name, status)) written.push(name);
    } catch (e) {
      deps.log.warn('could not write nodepool status', { nodepool: name, error: e instanceof Error ? e.message : String(e) });
    }
  };
  for (const pool of snapshot.nodePools) {
    const desired = desiredNodePoolStatus(pool, snapshot);
    if (!sameStatus(pool.observedStatus, desired)) await write(pool.name, desired);
  }
  for (const bad of snapshot.invalid ?? []) {
    if (bad.kind !== 'NodePool') continue;
    await write(bad.name, {
      conditions: withReady([{ type: 'ValidationSucceeded', status: 'False', reason: 'NodePoolValidationFailed', message: bad.reason }]),
    });
    // And a Warning on the pool when its status changes to it (kubectl describe nodepool; never a silent skip).
    if (written.includes(bad.name)) await recordEvents(deps, [invalidObjectEvent('NodePool', bad.name, 'NodePoolValidationFailed', bad.reason)]);
  }
  return written;
}
