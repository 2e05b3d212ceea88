/**
 * The controller's watch streams: each resumes from the last resourceVersion seen, a closed one is opened
 * again (at once after a clean end or a 410 Gone, from the current state after a 410, backing off when it keeps
 * failing), and a stream that fails to open is retried with back-off. Events and closes queue up for the loop
 * and wake it.
 */
import type { Clock, ClusterWatch, WatchClosed, WatchedKind, WatchEvent, WatchHandle } from '../ports';
import type { ControllerState } from './controller-state';
import type { LifecycleLogger } from './deps';
import { addMs, type EpochMs } from '../time';

export interface WatchesDeps {
  watch: ClusterWatch;
  clock: Clock;
  log: LifecycleLogger;
}

export class ControllerWatches {
  /** Events other than bookmarks received, and streams opened again after a close. */
  events = 0;
  rewatches = 0;
  private readonly queue: WatchEvent[] = [];
  private readonly closed: { kind: WatchedKind; why: WatchClosed }[] = [];
  private readonly handles = new Map<WatchedKind, WatchHandle>();
  private readonly versions = new Map<WatchedKind, string>();
  private readonly failedOpens = new Map<WatchedKind, number>();

  constructor(
    private readonly deps: WatchesDeps,
    private readonly state: ControllerState,
    private readonly wake: () => void,
  ) {}

  /** Nothing arrived since the loop last looked. */
  get idle(): boolean {
    return this.queue.length === 0 && this.closed.length === 0;
  }

  /** The events received since the last call, oldest first; each stream's resume point is recorded. */
  takeEvents(): WatchEvent[] {
    const events = this.queue.splice(0);
    for (const e of events) if (e.resourceVersion) this.versions.set(e.type === 'BOOKMARK' ? 'pods' : e.object.kind, e.resourceVersion);
    return events;
  }

  private async open(kind: WatchedKind): Promise<void> {
    const handle = await this.deps.watch.watch(
      kind,
      this.versions.get(kind),
      (e) => {
        this.queue.push(e);
        this.failedOpens.delete(kind);
        if (e.type !== 'BOOKMARK') this.events++;
        this.wake();
      },
      (why) => {
        this.closed.push({ kind, why });
        this.wake();
      },
    );
    this.handles.set(kind, handle);
  }

  async openOrRetry(kind: WatchedKind): Promise<void> {
    try {
      await this.open(kind);
    } catch (e) {
      const n = (this.failedOpens.get(kind) ?? 0) + 1;
      this.failedOpens.set(kind, n);
      this.deps.log.warn('watch failed to start; retrying', { kind, attempt: n, error: e instanceof Error ? e.message : String(e) });
      this.state.retryWatchAt(kind, addMs(this.deps.clock.now(), Math.min(5_000, 500 * 2 ** n)));
    }
  }

  /** Stops the streams that closed and makes each due to open again. */
  rewatchClosed(now: EpochMs): void {
    for (const { kind, why } of this.closed.splice(0)) {
      this.rewatches++;
      this.handles.get(kind)?.stop();
      this.handles.delete(kind);
      if (why.gone) this.versions.delete(kind); // too old: start again from the current state
      // Back off on streams that keep failing (an API server in trouble), at once after a clean end or a 410.
      const n = why.error && !why.gone ? (this.failedOpens.get(kind) ?? 0) + 1 : 0;
      this.failedOpens.set(kind, n);
      if (why.error) this.deps.log.warn('watch closed; watching again', { kind, gone: why.gone, error: why.error, attempt: n });
      this.state.retryWatchAt(kind, addMs(now, n === 0 ? 0 : Math.min(5_000, 250 * 2 ** n)));
    }
  }

  /** Opens the streams due again that are not open. */
  async openDue(now: EpochMs): Promise<void> {
    for (const kind of this.state.watchesDue(now)) if (!this.handles.has(kind)) await this.openOrRetry(kind);
  }

  stopAll(): void {
    for (const h of this.handles.values()) h.stop();
  }
}
