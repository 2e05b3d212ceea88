/**
 * PodDeletionCostManagement (Karpenter's alpha feature gate; karpenter.sh/preview/concepts/pod-deletion-cost,
 * kubernetes-sigs/karpenter RFC #2935): when a Deployment scales in, the ReplicaSet controller deletes the pods
 * with the lowest `controller.kubernetes.io/pod-deletion-cost` first. Ranking the nodes the way disruption would take
 * them and writing the rank on their ReplicaSet pods makes scale-downs empty the nodes consolidation wants to remove,
 * so it evicts fewer pods. All pods of a node get the same value:
 *
 * - a node being disrupted (karpenter.sh/disrupted taint, or deleting): the lowest int32;
 * - drifted nodes (oldest drift first), then every other node that may be disrupted, in consolidation order
 *   (cheapest to disrupt first): sequential negative ranks from −50, the first 50 nodes. Karpenter
 *   ranks only as many as each pool's Drifted / Underutilized budget allows now;
 * - any other node (not initialized, nominated for pending pods, do-not-disrupt on the node, its claim or a pod,
 *   consolidateAfter Never, beyond the first 50): no value (the annotation nodewright wrote is removed).
 *
 * Ownership: nodewright writes the value with `karpenter.sh/managed-deletion-cost: "true"` and the value in
 * `karpenter.sh/last-assigned-deletion-cost`; a pod whose pod-deletion-cost someone else set (no marker, or a value
 * other than the one last written) is left alone.
 */
import { Annotation } from '../model/labels';
import type { Pod } from '../model/kube';
import {
  byDisruptionCost,
  clusterView,
  consolidationCheck,
  isDisrupting,
  nodeCheck,
  podCheck,
  toCandidate,
  type ClusterView,
  type NodeView,
} from './candidates';
import { driftReason, driftedSince } from './drift';
import { isActive, managedDeletionCost } from './pods';
import type { Candidate, DisruptionInput } from './types';
import { isStatic } from '../scheduling/static-claim';

/**
 * Nodes ranked at most (Karpenter's hard cap per cycle): a scale-down takes far fewer pods than 50 nodes hold, and
 * every rank change is a write per pod.
 */
const MaxRankedNodes = 50;

/** The value for pods on a node being disrupted: the lowest int32. */
const DisruptingDeletionCost = -2_147_483_648;

interface DeletionCostWrite {
  namespace: string;
  name: string;
  /** The node's rank; null removes what nodewright wrote. */
  cost: number | null;
  /** The merge patch of the pod's annotations. */
  annotations: Record<string, string | null>;
}

const byName = (a: NodeView, b: NodeView) => (a.claim.name < b.claim.name ? -1 : a.claim.name > b.claim.name ? 1 : 0);

/** The nodes (by name) in the order their pods should go first: disrupting, then drifted, then consolidation candidates. */
function ranked(view: ClusterView): { disrupting: string[]; order: string[] } {
  const now = view.input.now;
  const classes = new Map(view.input.snapshot.nodeClasses.map((c) => [c.name, c]));
  const disrupting: string[] = [];
  const drifted: NodeView[] = [];
  const others: Candidate[] = [];
  for (const v of view.views) {
    if (isDisrupting(v)) {
      disrupting.push(v.node.name);
      continue;
    }
    if (nodeCheck(view, v) || !v.pool || isStatic(v.pool) || podCheck(view, v, false)?.kind === 'do-not-disrupt') continue;
    if (driftReason(v, v.pool, classes.get(v.pool.template.nodeClassRef.name), view.input.drifted)) {
      drifted.push(v);
      continue;
    }
    if (v.pool.disruption.consolidateAfter === null || consolidationCheck(v)) continue;
    const c = toCandidate(view, v, true);
    if (typeof c !== 'string') others.push(c);
  }
  drifted.sort((a, b) => driftedSince(a, now) - driftedSince(b, now) || byName(a, b));
  others.sort(byDisruptionCost);
  // Beyond Karpenter, which ranks only as many nodes as each pool's budget allows now: every node that may be
  // disrupted is ranked (up to MaxRankedNodes), so a scale-down larger than the budget empties whole nodes in order
  // instead of spreading the rest; the budget still paces their removal (measured: docs/benchmarks.md).
  return { disrupting, order: [...drifted.map((v) => v.node.name), ...others.map((c) => c.node.name)] };
}

/** The pod's patch toward `cost`, or undefined when it already carries it or is not nodewright's to change. */
function write(p: Pod, cost: number | null): DeletionCostWrite | undefined {
  const own = managedDeletionCost(p);
  if (cost === null) {
    if (!own) return undefined;
    const annotations = { [Annotation.podDeletionCost]: null, [Annotation.managedDeletionCost]: null, [Annotation.lastAssignedDeletionCost]: null };
    return { namespace: p.namespace, name: p.name, cost, annotations };
  }
  const value = String(cost);
  if (!own && p.annotations[Annotation.podDeletionCost] !== undefined) return undefined;
  if (own && p.annotations[Annotation.podDeletionCost] === value) return undefined;
  const annotations = { [Annotation.podDeletionCost]: value, [Annotation.managedDeletionCost]: 'true', [Annotation.lastAssignedDeletionCost]: value };
  return { namespace: p.namespace, name: p.name, cost, annotations };
}

/**
 * The writes that bring the ReplicaSet pods on managed nodes to their node's rank: the first-ranked nodes' first
 * (they steer the next scale-down), then the removals. Nothing when every pod already carries its value.
 */
export function deletionCostWrites(input: DisruptionInput): DeletionCostWrite[] {
  const view = clusterView(input);
  const { disrupting, order } = ranked(view);
  const cost = new Map<string, number>();
  for (const name of disrupting.slice(0, MaxRankedNodes)) cost.set(name, DisruptingDeletionCost);
  // A constant base (not the node count): a node joining or leaving does not shift every rank, and rewrite every pod.
  order.slice(0, MaxRankedNodes).forEach((name, i) => cost.set(name, i - MaxRankedNodes));
  const first: DeletionCostWrite[] = [];
  const rest: DeletionCostWrite[] = [];
  const rankOf = (w: DeletionCostWrite) => w.cost ?? 0;
  for (const v of view.views) {
    for (const p of v.pods) {
      if (p.owner?.kind !== 'ReplicaSet' || !isActive(p)) continue;
      const w = write(p, cost.get(v.node.name) ?? null);
      if (w) (w.cost === null ? rest : first).push(w);
    }
  }
  first.sort((a, b) => rankOf(a) - rankOf(b));
  return [...first, ...rest];
}

/** With the gate off: the removals of what nodewright wrote while it was on, so stale ranks stop steering scale-downs. */
export function deletionCostRemovals(input: DisruptionInput): DeletionCostWrite[] {
  const out: DeletionCostWrite[] = [];
  for (const p of input.snapshot.pods) {
    if (!managedDeletionCost(p) || !isActive(p)) continue;
    const w = write(p, null);
    if (w) out.push(w);
  }
  return out;
}
