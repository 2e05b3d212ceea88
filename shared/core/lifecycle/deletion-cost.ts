/**
 * PodDeletionCostManagement's writes (core/disruption/deletion-cost.ts decides them): each disruption pass computes
 * the pods whose pod-deletion-cost is not their node's rank; at most once a minute across invocations (a lease with
 * no release, as Karpenter re-ranks at most once a minute) a few seconds of them are written, the first-ranked
 * nodes' pods first. A pass that finds every pod at its value writes nothing.
 */
import { deletionCostWrites, type DisruptionInput } from '../disruption';
import { eachLimited } from '../concurrency';
import type { LifecycleDeps } from './deps';

const DELETION_COST_LEASE = 'disruption-deletion-cost';
const RANK_SECONDS = 60;
/** Pod patches at once, and how long a pass spends on them; what is left waits for the next minute's pass. */
const WRITES = { concurrency: 8, ms: 5_000 } as const;

/** Writes the pods' deletion costs if due; returns how many pods were patched. */
export async function steerScaleDown(deps: LifecycleDeps, input: DisruptionInput, holder: string): Promise<number> {
  const writes = deletionCostWrites(input);
  if (writes.length === 0) return 0;
  if (!(await deps.store.acquireLease(DELETION_COST_LEASE, holder, RANK_SECONDS).catch(() => false))) return 0;
  const until = deps.clock.now() + WRITES.ms;
  let written = 0;
  await eachLimited(writes, WRITES.concurrency, async (w) => {
    if (deps.clock.now() >= until) return;
    try {
      await deps.cluster.annotatePod(w, w.annotations);
      written++;
    } catch (e) {
      deps.log.warn('could not write pod deletion cost', { pod: `${w.namespace}/${w.name}`, error: e instanceof Error ? e.message : String(e) });
    }
  });
  deps.log.info('wrote pod deletion costs', { pods: written, pending: writes.length - written });
  return written;
}
