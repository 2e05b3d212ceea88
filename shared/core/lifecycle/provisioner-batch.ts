/** The provisioner's batching window (Karpenter's batcher). */
import type { Pod } from '../model/kube';
import type { ClusterSnapshot } from '../ports';
import type { LifecycleDeps } from './deps';
import { provisionablePods } from './provisionable';

/** Karpenter's batcher: wait until no new pod for `idleMs`, or `maxBatchMs` in total. */
export async function batch(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster'>,
  first: ClusterSnapshot,
  firstPending: Pod[],
  idleMs: number,
  maxBatchMs: number,
): Promise<{ snapshot: ClusterSnapshot; pending: Pod[] }> {
  const batchStart = deps.clock.now();
  const seen = new Set(firstPending.map((p) => p.uid));
  let snapshot = first;
  let pending = firstPending;
  for (;;) {
    const left = maxBatchMs - (deps.clock.now() - batchStart);
    if (left <= 0) break;
    await deps.clock.sleep(Math.min(idleMs, left));
    snapshot = await deps.cluster.snapshot();
    pending = provisionablePods(snapshot);
    const fresh = pending.filter((p) => !seen.has(p.uid));
    if (fresh.length === 0) break;
    for (const p of fresh) seen.add(p.uid);
  }
  return { snapshot, pending };
}
