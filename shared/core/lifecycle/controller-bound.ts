/**
 * Which events of the `boundpods` stream (never listed: no state before its first event, see ports/cluster-watch.ts)
 * change what disruption reads of a pod: its node (fixed once bound), phase and deletion. A pod that binds or is
 * created on a node (ADDED), goes away (DELETED), finishes, fails or starts terminating is a change; a running pod's
 * status updates (probes, restarts) are not. Only pods not running are remembered (bound and still Pending,
 * finished, failed or terminating: a Job's finished pod gets updates until it is deleted), at most MAX_REMEMBERED of
 * them — the oldest forgotten first: an update of one forgotten counts again, at worst one more (debounced) pass.
 */
import type { Pod } from '../model/kube';

const MAX_REMEMBERED = 10_000;

/** What disruption reads of a bound pod (its node does not change). */
const printOf = (p: Pod): string => `${p.phase}|${p.deletionTimestamp ?? ''}`;
const running = (p: Pod): boolean => p.phase === 'Running' && p.deletionTimestamp === undefined;

export class BoundPodChanges {
  /** uid → print, for pods in a passing state, oldest first. */
  private readonly remembered = new Map<string, string>();

  /** Whether this event of the `boundpods` stream is a change for disruption. */
  changed(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): boolean {
    const before = this.remembered.get(pod.uid);
    this.remembered.delete(pod.uid);
    if (type === 'DELETED') return true;
    const print = printOf(pod);
    if (!running(pod)) {
      this.remembered.set(pod.uid, print);
      if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    }
    if (type === 'ADDED') return true;
    // Unknown before: a running pod's update is not a change; a finished, failed or terminating one may be.
    return before === undefined ? !running(pod) : before !== print;
  }
}
