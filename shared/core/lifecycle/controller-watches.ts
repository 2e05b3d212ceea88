/**
 * The controller's watch streams. Each kind resumes from its own last resourceVersion (an object event's, or a
 * bookmark's or listing's of that stream — never another stream's: a nodes bookmark is at the API server's newest
 * revision, which the pods stream may not have delivered yet). A closed stream is opened again (at once after a
 * clean end or a 410 Gone, backing off while it keeps failing); after a 410, or when a listing was cut off, it lists
 * the current state again, and at its end (SYNCED) what the controller knew of that kind and the listing did not
 * have is reported DELETED. Streams open concurrently and are never waited for: a connect that hangs holds up
 * nothing (the adapter gives it up and closes it), and a stream's answer that arrives after it was given up is
 * closed at once. Events and closes queue up for the loop and wake it. The `boundpods` stream is edges only (never
 * listed, nothing known of it to replace): when it starts again from the current state after a gap in the same
 * invocation, the changes it missed are made up by one disruption pass. (At an invocation's start the listings of
 * nodes and NodeClaims, all new to it, make that pass due anyway.)
 */
import type { Clock, ClusterWatch, WatchClosed, WatchedKind, WatchEvent, WatchHandle } from '../ports';
import type { ObjectEvent } from './controller-fingerprint';
import { KnownObjects } from './controller-known';
import type { ControllerState } from './controller-state';
import type { LifecycleLogger } from './deps';
import { addMs, type EpochMs } from '../time';
import { errorText } from '../errors';

export interface WatchesDeps {
  watch: ClusterWatch;
  clock: Clock;
  log: LifecycleLogger;
}

interface Stream {
  id: number;
  handle?: WatchHandle;
  ended: boolean;
}

export class ControllerWatches {
  /** Events other than bookmarks received, and streams opened again after a close. */
  events = 0;
  rewatches = 0;
  private readonly queue: { stream: number; e: WatchEvent }[] = [];
  private readonly closed: { kind: WatchedKind; why: WatchClosed }[] = [];
  private readonly streams = new Map<WatchedKind, Stream>();
  private readonly versions = new Map<WatchedKind, string>();
  private readonly failedOpens = new Map<WatchedKind, number>();
  private readonly known = new KnownObjects();
  /** Kinds whose stream is listing the current state: that stream, and the keys it delivered so far. */
  private readonly listing = new Map<WatchedKind, { stream: number; listed: Set<string>; again: boolean }>();
  /** Kinds opened at least once by this invocation. */
  private readonly opened = new Set<WatchedKind>();
  private seq = 0;
  private stopped = false;

  constructor(
    private readonly deps: WatchesDeps,
    private readonly state: ControllerState,
    private readonly wake: () => void,
  ) {}

  /** Nothing arrived since the loop last looked. */
  get idle(): boolean {
    return this.queue.length === 0 && this.closed.length === 0;
  }

  /**
   * The object events received since the last call, oldest first, with a DELETED for each object a finished
   * listing no longer has; each stream's resume point is recorded.
   */
  takeEvents(now: EpochMs): ObjectEvent[] {
    const out: ObjectEvent[] = [];
    for (const { stream, e } of this.queue.splice(0)) {
      if (e.type === 'BOOKMARK' || e.type === 'SYNCED') {
        const listing = this.listing.get(e.kind);
        if (e.type === 'SYNCED' && listing?.stream === stream) {
          this.listing.delete(e.kind);
          if (e.kind === 'boundpods') {
            if (listing.again) this.state.changed(now);
          } else out.push(...this.known.replace(e.kind, listing.listed));
        }
        if (!this.listing.has(e.kind)) this.versions.set(e.kind, e.resourceVersion);
        continue;
      }
      const key = this.known.apply(e);
      const listing = this.listing.get(e.object.kind);
      // While listing, objects come in no resourceVersion order: only the listing's end is a resume point.
      if (listing) {
        if (listing.stream === stream) listing.listed.add(key);
      } else if (e.resourceVersion) this.versions.set(e.object.kind, e.resourceVersion);
      out.push(e);
    }
    return out;
  }

  /** Opens `kind`'s stream, from its resume point or listing the current state, without waiting for it. */
  open(kind: WatchedKind): void {
    const s: Stream = { id: ++this.seq, ended: false };
    this.streams.set(kind, s);
    const from = this.versions.get(kind);
    if (from === undefined) this.listing.set(kind, { stream: s.id, listed: new Set(), again: this.opened.has(kind) });
    this.opened.add(kind);
    const live = () => !this.stopped && !s.ended && this.streams.get(kind) === s;
    const closed = (why: WatchClosed) => {
      if (!live()) return;
      s.ended = true;
      this.closed.push({ kind, why });
      this.wake();
    };
    const onEvent = (e: WatchEvent) => {
      if (!live()) return;
      this.queue.push({ stream: s.id, e });
      this.failedOpens.delete(kind);
      if (e.type !== 'BOOKMARK' && e.type !== 'SYNCED') this.events++;
      this.wake();
    };
    let started: Promise<WatchHandle>;
    try {
      started = this.deps.watch.watch(kind, from, onEvent, closed);
    } catch (e) {
      started = Promise.reject(e);
    }
    started.then(
      (handle) => {
        // Given up meanwhile (closed, replaced, or the loop stopped): its connection is closed now.
        if (live()) s.handle = handle;
        else handle.stop();
      },
      (e: unknown) => closed({ gone: false, error: `watch ${kind} failed to start: ${errorText(e)}` }),
    );
  }

  /** Stops the streams that closed and makes each due to open again. */
  rewatchClosed(now: EpochMs): void {
    for (const { kind, why } of this.closed.splice(0)) {
      this.rewatches++;
      this.streams.get(kind)?.handle?.stop();
      this.streams.delete(kind);
      // Too old (410), or cut off while listing: list the current state again.
      if (why.gone || this.listing.has(kind)) this.versions.delete(kind);
      // Back off on streams that keep failing (an API server in trouble), at once after a clean end or a 410.
      const n = why.error && !why.gone ? (this.failedOpens.get(kind) ?? 0) + 1 : 0;
      this.failedOpens.set(kind, n);
      if (why.error) this.deps.log.warn('watch closed; watching again', { kind, gone: why.gone, error: why.error, attempt: n });
      this.state.retryWatchAt(kind, addMs(now, n === 0 ? 0 : Math.min(5_000, 250 * 2 ** n)));
    }
  }

  /** Opens the streams due again that are not open. */
  openDue(now: EpochMs): void {
    for (const kind of this.state.watchesDue(now)) if (!this.streams.has(kind)) this.open(kind);
  }

  stopAll(): void {
    this.stopped = true;
    for (const s of this.streams.values()) {
      s.ended = true;
      s.handle?.stop();
    }
  }
}
