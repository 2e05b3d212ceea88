/**
 * The sweep of stale `karpenter.sh/disrupted` taints. Every Task failure of `terminate` is compensated
 * (ReleaseNode) and a failed `disrupt` rolls back, but an execution can also end outside its Tasks — stopped by
 * hand (ABORTED), TIMED_OUT, or failed in a state with no Catch. Its node would stay tainted, and disruption
 * budgets count a tainted node as disrupting for good. Each node's `nodewright.io/disrupted-by` names the
 * execution that holds the taint; when that execution has ended without success, the taint is removed.
 * A SUCCEEDED execution is left alone (a `disrupt` hands its nodes to `terminate` executions, which re-annotate
 * them), and so is a node or claim being deleted, or a taint nobody annotated (Karpenter's, an older nodewright).
 */
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Annotation, TaintKey } from '../model/labels';
import type { ClusterClient, ClusterSnapshot, ExecutionStatus, WorkflowName, WorkflowStarter } from '../ports';
import type { LifecycleLogger } from './deps';

const ENDED_BADLY: ReadonlySet<ExecutionStatus> = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

export interface StaleTaintCandidate {
  node: string;
  machine: WorkflowName;
  execution: string;
}

/** Tainted nodes whose taint names its execution, not being deleted (nor their claim). Pure. */
export function staleTaintCandidates(snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>): StaleTaintCandidate[] {
  const claimOf = (n: Node): NodeClaim | undefined => snapshot.nodeClaims.find((c) => c.status.nodeName === n.name || (!!n.providerID && c.status.providerID === n.providerID));
  const out: StaleTaintCandidate[] = [];
  for (const n of snapshot.nodes) {
    if (n.deletionTimestamp !== undefined || claimOf(n)?.deletionTimestamp !== undefined) continue;
    if (!n.taints.some((t) => t.key === TaintKey.disrupted)) continue;
    const m = /^(terminate|disrupt)\/(.+)$/.exec(n.annotations[Annotation.disruptedBy] ?? '');
    if (m) out.push({ node: n.name, machine: m[1] as WorkflowName, execution: m[2] });
  }
  return out;
}

export async function sweepStaleTaints(deps: { cluster: Pick<ClusterClient, 'getNode' | 'patchNode'>; workflows: WorkflowStarter; log: LifecycleLogger }, snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>): Promise<string[]> {
  const status = deps.workflows.status?.bind(deps.workflows);
  if (!status) return [];
  const swept: string[] = [];
  for (const c of staleTaintCandidates(snapshot)) {
    const s = await status(c.machine, c.execution);
    if (!s || !ENDED_BADLY.has(s)) continue;
    const node = await deps.cluster.getNode(c.node);
    if (!node || node.annotations[Annotation.disruptedBy] !== `${c.machine}/${c.execution}`) continue; // changed meanwhile
    await deps.cluster.patchNode(node.name, { taints: node.taints.filter((t) => t.key !== TaintKey.disrupted), annotations: { [Annotation.disruptedBy]: null } });
    deps.log.warn('removed a stale disrupted taint', { node: node.name, execution: `${c.machine}/${c.execution}`, status: s });
    swept.push(node.name);
  }
  return swept;
}
