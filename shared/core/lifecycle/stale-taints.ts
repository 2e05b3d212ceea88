/**
 * The sweep of stale `karpenter.sh/disrupted` taints. Every Task failure of `terminate` is compensated
 * (ReleaseNode) and a failed `disrupt` rolls back, but an execution can also end outside its Tasks — stopped by
 * hand (ABORTED), TIMED_OUT, or failed in a state with no Catch. Its node would stay tainted, and disruption
 * budgets count a tainted node as disrupting for good. Each node's `nodewright.io/disrupted-by` names the
 * execution that holds the taint; when that execution has ended without success, the taint is removed.
 * A SUCCEEDED execution is left alone (a `disrupt` hands its nodes to `terminate` executions, which re-annotate
 * them), and so is a node or claim being deleted.
 *
 * A taint nobody annotated is not nodewright's current work (every Task that taints writes the annotation in
 * the same patch): it is Karpenter's, left by a controller that stopped mid-disruption (a migration), or an
 * older nodewright's. It is removed as Karpenter's own disruption controller removes taints of nodes that are
 * not in its orchestration queue — unless the node or its claim is being deleted.
 */
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Annotation, TaintKey } from '../model/labels';
import type { ClusterClient, ClusterSnapshot, ExecutionStatus, WorkflowName, WorkflowStarter } from '../ports';
import type { LifecycleLogger } from './deps';

const ENDED_BADLY: ReadonlySet<ExecutionStatus> = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

type StaleTaintCandidate =
  | { node: string; machine: WorkflowName; execution: string }
  /** Tainted with no `nodewright.io/disrupted-by`: no nodewright execution holds it. */
  | { node: string; unannotated: true };

/** Tainted nodes whose taint names its execution, not being deleted (nor their claim). Pure. */
function staleTaintCandidates(snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>): StaleTaintCandidate[] {
  const claimOf = (n: Node): NodeClaim | undefined =>
    snapshot.nodeClaims.find((c) => c.status.nodeName === n.name || (!!n.providerID && c.status.providerID === n.providerID));
  const out: StaleTaintCandidate[] = [];
  for (const n of snapshot.nodes) {
    if (n.deletionTimestamp !== undefined || claimOf(n)?.deletionTimestamp !== undefined) continue;
    if (!n.taints.some((t) => t.key === TaintKey.disrupted)) continue;
    const by = n.annotations[Annotation.disruptedBy];
    const m = /^(terminate|disrupt)\/(.+)$/.exec(by ?? '');
    if (m) out.push({ node: n.name, machine: m[1] as WorkflowName, execution: m[2] });
    else if (by === undefined) out.push({ node: n.name, unannotated: true });
  }
  return out;
}

export async function sweepStaleTaints(
  deps: { cluster: Pick<ClusterClient, 'getNode' | 'patchNode'>; workflows: WorkflowStarter; log: LifecycleLogger },
  snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>,
): Promise<string[]> {
  const status = deps.workflows.status?.bind(deps.workflows);
  const swept: string[] = [];
  for (const c of staleTaintCandidates(snapshot)) {
    let why: Record<string, string>;
    if ('unannotated' in c) {
      why = { reason: "no nodewright execution holds it (Karpenter's or an older nodewright's taint)" };
    } else {
      const s = status ? (await status(c.machine, c.execution))?.status : undefined;
      if (!s || !ENDED_BADLY.has(s)) continue;
      why = { execution: `${c.machine}/${c.execution}`, status: s };
    }
    const node = await deps.cluster.getNode(c.node);
    // Changed meanwhile: untainted, re-annotated by an execution, or being deleted.
    const expected = 'unannotated' in c ? undefined : `${c.machine}/${c.execution}`;
    if (
      !node ||
      node.deletionTimestamp !== undefined ||
      node.annotations[Annotation.disruptedBy] !== expected ||
      !node.taints.some((t) => t.key === TaintKey.disrupted)
    )
      continue;
    await deps.cluster.patchNode(node.name, {
      taints: node.taints.filter((t) => t.key !== TaintKey.disrupted),
      ...(expected ? { annotations: { [Annotation.disruptedBy]: null } } : {}),
    });
    deps.log.warn('removed a stale disrupted taint', { node: node.name, ...why });
    swept.push(node.name);
  }
  return swept;
}
