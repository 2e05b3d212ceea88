/**
 * PodDeletionCostManagement's writes (core/disruption/deletion-cost.ts decides them): each disruption pass computes
 * the pods whose pod-deletion-cost is not their node's rank; at most once a minute across invocations (a lease with
 * no release, as Karpenter re-ranks at most once a minute) a few seconds of them are written, the first-ranked
 * nodes' pods first. A pass that finds every pod at its value writes nothing.
 */
import { deletionCostRemovals, deletionCostWrites, type DisruptionInput } from '../disruption';
import { eachLimited } from '../concurrency';
import type { LifecycleDeps } from './deps';

const DELETION_COST_LEASE = 'disruption-deletion-cost';
const RANK_SECONDS = 60;
/** Pod patches at once, and how long a pass spends on them; what is left waits for the next minute's pass. */
const WRITES = { concurrency: 8, ms: 5_000 } as const;
/** When this container (its dependencies) last took the lease. */
const lastWrite = new WeakMap<LifecycleDeps, number>();

/**
 * Writes the pods' deletion costs if due (with the gate off, only the removal of what nodewright wrote while it was
 * on); returns how many pods were patched. The lease's holder is this acquisition's own, so the passes of one
 * invocation (10 s apart) do not take it again within the minute. The first failed patch ends the batch: an API
 * server that refuses or throttles is not sent more of them this pass.
 */
export async function steerScaleDown(deps: LifecycleDeps, input: DisruptionInput, holder: string, enabled: boolean): Promise<number> {
  const now = deps.clock.now();
  // This container wrote less than a minute ago: the lease would refuse, so the ranking is not computed again.
  if (now - (lastWrite.get(deps) ?? -Infinity) < RANK_SECONDS * 1000) return 0;
  const writes = enabled ? deletionCostWrites(input) : deletionCostRemovals(input);
  if (writes.length === 0) return 0;
  if (!(await deps.store.acquireLease(DELETION_COST_LEASE, `${holder}@${now}`, RANK_SECONDS).catch(() => false))) return 0;
  lastWrite.set(deps, now);
  const until = now + WRITES.ms;
  let written = 0;
  let failed = false;
  await eachLimited(writes, WRITES.concurrency, async (w) => {
    if (failed || deps.clock.now() >= until) return;
    try {
      await deps.cluster.annotatePod(w, w.annotations);
      written++;
    } catch (e) {
      failed = true;
      deps.log.warn('could not write pod deletion cost; the rest waits for the next minute', {
        pod: `${w.namespace}/${w.name}`,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  });
  deps.log.info(enabled ? 'wrote pod deletion costs' : 'removed pod deletion costs (PodDeletionCostManagement is off)', {
    pods: written,
    pending: writes.length - written,
  });
  return written;
}
