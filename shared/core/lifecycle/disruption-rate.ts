/**
 * `nodewright.io/disruption-rate`'s ledger: each voluntary disruption a pass starts on a pool with a rate is recorded
 * on the pool (`nodewright.io/disruption-rate-ledger`, epoch seconds, pruned to the window), where the next pass reads
 * it with the pool. Only the disruption function writes it (one at a time: its concurrency is 1).
 */
import type { Command } from '../disruption';
import type { NodePool } from '../model/karpenter';
import { Annotation } from '../model/labels';
import { addSeconds, type EpochMs } from '../time';
import type { LifecycleDeps } from './deps';

export async function recordDisruptionRate(deps: Pick<LifecycleDeps, 'cluster' | 'log'>, started: readonly Command[], now: EpochMs): Promise<void> {
  const byPool = new Map<string, { pool: NodePool; count: number }>();
  for (const cmd of started)
    for (const c of cmd.candidates) {
      if (!c.nodePool.disruption.rate) continue;
      const e = byPool.get(c.nodePool.name) ?? { pool: c.nodePool, count: 0 };
      e.count++;
      byPool.set(c.nodePool.name, e);
    }
  for (const [name, { pool, count }] of byPool) {
    const since = addSeconds(now, -pool.disruption.rate!.windowSeconds);
    const kept = (pool.disruption.rateLedger ?? []).filter((t) => t > since);
    const ledger = [...kept, ...Array.from({ length: count }, () => now)].map((t) => Math.floor(t / 1000)).join(',');
    try {
      await deps.cluster.patchAnnotations('NodePool', name, { [Annotation.disruptionRateLedger]: ledger });
    } catch (e) {
      // The commands have started: a pass that cannot record them may let the next one start more than the rate.
      deps.log.warn('could not record disruptions on the nodepool rate ledger', { nodepool: name, error: e instanceof Error ? e.message : String(e) });
    }
  }
}
