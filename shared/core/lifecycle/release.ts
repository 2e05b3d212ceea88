/**
 * ReleaseNode (terminate's compensation): a termination that failed for good — a Task that kept failing after
 * its retries, or a drain that hit its deadline with pods still blocked — must not leave the node tainted
 * `karpenter.sh/disrupted`, because disruption budgets count a tainted node as disrupting until it goes: one
 * stuck node would stop consolidation for good. The node keeps running and takes pods again; the claim stays
 * (a NodeClaim being deleted keeps its finalizer; garbage collection handles one whose instance is gone).
 */
import { Annotation, TaintKey } from '../model/labels';
import type { LifecycleDeps } from './deps';
import type { TerminationTarget } from './termination';

export interface ReleaseResult {
  nodeName?: string;
  untainted: boolean;
  failure: string;
}

export async function releaseNode(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>,
  target: TerminationTarget,
  failure: string,
): Promise<ReleaseResult> {
  const nodeName = target.nodeName ?? (target.nodeClaimName ? (await deps.cluster.getNodeClaim(target.nodeClaimName))?.status.nodeName : undefined);
  const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
  let untainted = false;
  if (node && node.taints.some((t) => t.key === TaintKey.disrupted)) {
    untainted = await deps.cluster.patchNode(node.name, {
      taints: node.taints.filter((t) => t.key !== TaintKey.disrupted),
      annotations: { [Annotation.disruptedBy]: null },
    });
    deps.log.warn('untainted node after a failed termination', { node: node.name, nodeclaim: target.nodeClaimName, reason: target.reason, failure });
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'termination',
    action: 'released',
    reason: failure,
    ...(target.nodeClaimName ? { nodeClaims: [target.nodeClaimName] } : {}),
    ...(node ? { nodes: [node.name] } : {}),
    detail: { untainted, terminationReason: target.reason },
  });
  return { ...(node ? { nodeName: node.name } : {}), untainted, failure };
}
