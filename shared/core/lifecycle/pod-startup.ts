/**
 * karpenter_pods_startup_duration_seconds as Karpenter's pod metrics controller observes it: a pod seen Pending
 * that then turns Ready counts once, from its creation to its Ready condition's transition. The controller feeds
 * it the pods watch; pods it never saw pending (created and started while no controller held the watches) are not
 * counted, as Karpenter misses those across a restart.
 */
import type { Pod } from '../model/kube';
import type { MetricsRecorder } from '../ports';
import { toSeconds, type EpochMs } from '../time';

export class PodStartups {
  private readonly pending = new Set<string>();

  constructor(private readonly metrics: MetricsRecorder | undefined) {}

  /** One watch event about a pod, at `nowMs`. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod, nowMs: EpochMs): void {
    if (!this.metrics) return;
    const key = pod.uid;
    if (type === 'DELETED') {
      this.pending.delete(key);
    } else if (pod.phase === 'Pending') {
      this.pending.add(key);
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
