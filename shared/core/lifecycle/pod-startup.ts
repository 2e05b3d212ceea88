/**
 * karpenter_pods_startup_duration_seconds as Karpenter's pod metrics controller observes it: a pod seen Pending
 * that then turns Ready counts once, from its creation to its Ready condition's transition. The controller feeds
 * it both pods watches: a pending pod is seen on `pods` (unbound) and, once bound, on `boundpods` while still
 * Pending; it turns Ready on `boundpods`. Leaving `pods` (DELETED) is mostly binding, so it does not forget the pod;
 * a pod deleted before it bound stays remembered until MAX_WAITING newer ones push it out (oldest first). Pods it
 * never saw pending (created and started while no controller held the watches) are not counted, as Karpenter misses
 * those across a restart.
 */
import type { Pod } from '../model/kube';
import type { MetricsRecorder } from '../ports';
import { toSeconds, type EpochMs } from '../time';

const MAX_WAITING = 20_000;

export class PodStartups {
  /** Pods seen pending (uid), oldest first. */
  private readonly pending = new Set<string>();

  constructor(private readonly metrics: MetricsRecorder | undefined) {}

  /** One event of the `pods` (unbound) or `boundpods` stream about a pod, at `nowMs`. */
  apply(stream: 'pods' | 'boundpods', type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod, nowMs: EpochMs): void {
    if (!this.metrics) return;
    const key = pod.uid;
    if (type === 'DELETED') {
      if (stream === 'boundpods') this.pending.delete(key);
    } else if (pod.phase === 'Pending') {
      this.pending.add(key);
      if (this.pending.size > MAX_WAITING) this.pending.delete(this.pending.values().next().value!);
    } else if (pod.ready && this.pending.delete(key)) {
      const readyAt = pod.readySince ?? nowMs;
      this.metrics.observe('karpenter_pods_startup_duration_seconds', {}, Math.max(0, toSeconds(readyAt) - toSeconds(pod.creationTimestamp)));
    }
  }

  /** Pods seen pending and not started yet. */
  get waiting(): number {
    return this.pending.size;
  }
}
