/**
 * Long drains and Step Functions' 25,000-event history limit. One drain pass of `terminate` (EvictPods, the
 * DrainDecision choice, WaitForDrain) writes 9 history events; the wait grows to 2 minutes, so a drain held by a
 * PDB for days (terminationGracePeriod can be any length) would run out of history after ~2,700 passes (≈ 3.5
 * days) and fail. After DRAIN_PASSES_PER_EXECUTION passes the execution instead starts a fresh `terminate` for
 * the same node and ends: TaintNode is idempotent (the drain deadline is the one recorded on the claim) and
 * re-annotates the node with the new execution, so nothing of the drain is lost.
 */
import type { LifecycleDeps } from './deps';
import type { DrainingTarget } from './termination';

/** 2,000 passes × 9 events + the steps before and after stay well under 25,000 (test/statemachines/history.test.ts). */
export const DRAIN_PASSES_PER_EXECUTION = 2000;

/** Step Functions execution names are at most 80 characters. */
const MAX_NAME = 80;

/** `<name>-cont1`, then `-cont2`, …: deterministic, so a retried ContinueDrain starts the same execution. */
function continuationName(executionName: string): string {
  const m = /^(.*)-cont(\d+)$/.exec(executionName);
  const base = m ? m[1] : executionName;
  const suffix = `-cont${m ? Number(m[2]) + 1 : 1}`;
  return `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

export async function continueDrain(
  deps: Pick<LifecycleDeps, 'workflows' | 'log'>,
  target: DrainingTarget,
  executionName: string,
): Promise<{ continuedAs: string; passes: number }> {
  const name = continuationName(executionName);
  const input = target.nodeClaimName ? { nodeClaimName: target.nodeClaimName, reason: target.reason } : { nodeName: target.nodeName, reason: target.reason };
  await deps.workflows.start('terminate', name, input);
  deps.log.info('drain continues in a new terminate execution', {
    node: target.nodeName,
    nodeclaim: target.nodeClaimName,
    passes: target.passes,
    execution: name,
  });
  return { continuedAs: name, passes: target.passes ?? 0 };
}
