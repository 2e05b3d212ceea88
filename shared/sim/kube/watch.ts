/**
 * Watch streams (`?watch=true`) for kubectl get -w and informers: newline-delimited {"type","object"} events.
 * A watch from a resourceVersion replays the recent history of its type after it (watch-cache.ts; 410 Gone when
 * that history no longer reaches back); without one it starts with ADDED for every existing object, as the API server does. With
 * `allowWatchBookmarks=true` it sends a BOOKMARK every minute, as the API server's watch cache does: an object of
 * the watched kind carrying only the server's current resourceVersion — the newest of any kind, which this
 * stream may not have had an event at. With a label or field selector, an object that starts or stops matching
 * is ADDED or DELETED for that stream, as on the API server.
 */
import type { ServerResponse } from 'node:http';
import type { Target } from './handler';
import { matchesFieldSelector, matchesLabelSelector, parseFieldSelector, parseLabelSelector } from './selectors';
import type { KubeStore } from './store';
import { toTable, wantsTable } from './table';
import type { ChangeEvent, KubeObject } from './types';
import { WatchCache } from './watch-cache';

/** The API server's watch cache sends a bookmark to each watcher that asked about once a minute. */
const BOOKMARK_EVERY_MS = 60_000;

/** Runs `fn` after `ms` of the server's time (virtual in the simulator); returns a cancel. */
type Timer = (ms: number, fn: () => void) => () => void;

interface Watcher {
  res: ServerResponse;
  target: Target;
  matches: (o: KubeObject) => boolean;
  send: (type: string, o: KubeObject) => void;
  /** Bytes the stream had buffered once its listing or history was written. */
  backlog: number;
}

/**
 * Watches opened by nodewright's controller name themselves in the User-Agent (`nodewright-controller (watch N)`);
 * the simulator compares what was written to each with what the controller reports received, so virtual time
 * never moves while an event is still on the wire.
 */
const TAGGED_WATCH = /^nodewright-[a-z-]+ \(watch (\d+)\)$/;

export class WatchHub {
  private readonly history: WatchCache;
  private readonly watchers = new Set<Watcher>();
  /** Events written per tagged watch still open. */
  readonly sentByWatch = new Map<string, number>();

  constructor(
    private readonly store: KubeStore,
    private readonly timer: Timer,
  ) {
    this.history = new WatchCache(() => store.now());
    store.onChange((e) => {
      this.history.add(e);
      for (const w of this.watchers) {
        const type = sameType(w.target, e) ? typeFor(e, w.matches) : undefined;
        if (!type) continue;
        w.send(type, type === 'DELETED' && e.type === 'MODIFIED' ? leftAt(e) : e.object);
        // kube-apiserver closes a watcher that does not keep up ("Forcing watcher close due to unresponsiveness")
        // rather than buffer for it without end: a client that stopped reading (a sandbox gone) costs no memory.
        if (w.res.writableLength > w.backlog + SLOW_WATCHER_BYTES) w.res.end();
      }
    });
  }

  /** Forgets the history so far (etcd's compaction): a watch resuming from before now is answered 410 Gone. */
  compact(): void {
    this.history.compact(Number(this.store.resourceVersion()));
  }

  /** Ends every open watch stream (what an API server restart or a load balancer timeout does). */
  dropAll(): number {
    const open = [...this.watchers];
    for (const w of open) {
      this.watchers.delete(w);
      w.res.end();
    }
    return open.length;
  }

  /** Streams events for `target` to `res` until the client goes away or timeoutSeconds pass. */
  open(target: Target, query: URLSearchParams, accept: string | undefined, res: ServerResponse, userAgent?: string): void {
    const tag = TAGGED_WATCH.exec(userAgent ?? '')?.[1];
    const labels = parseLabelSelector(query.get('labelSelector') ?? '');
    const fields = parseFieldSelector(query.get('fieldSelector') ?? '');
    const matches = (o: KubeObject) =>
      (!target.namespace || o.metadata.namespace === target.namespace) &&
      (!target.name || o.metadata.name === target.name) &&
      matchesLabelSelector(o.metadata.labels, labels) &&
      matchesFieldSelector(o, fields);
    const table = wantsTable(accept);
    const send = (type: string, o: KubeObject) => {
      if (!writable(res)) return; // the client went away (or the stream was ended): 'close' forgets this watcher
      const object = table ? toTable(this.store, target.rt, [o], { resourceVersion: o.metadata.resourceVersion }, query.get('includeObject')) : o;
      res.write(`${JSON.stringify({ type, object })}\n`);
      if (tag !== undefined) this.sentByWatch.set(tag, (this.sentByWatch.get(tag) ?? 0) + 1);
    };
    if (tag !== undefined) this.sentByWatch.set(tag, 0);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders(); // as the API server: the client sees 200 at once, before the first event
    const since = Number(query.get('resourceVersion') ?? '0');
    const oldest = this.history.oldestResumable(target.rt);
    if (since > 0 && since < oldest) {
      // As the API server: the history no longer reaches back there — 410 Gone as an ERROR event, then the end.
      res.write(
        `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `too old resource version: ${since} (${oldest + 1})`, reason: 'Expired', code: 410 } })}\n`,
      );
      if (tag !== undefined) this.sentByWatch.set(tag, (this.sentByWatch.get(tag) ?? 0) + 1);
      res.end();
      return;
    }
    if (since > 0) {
      for (const e of this.history.after(target.rt, since)) {
        const type = typeFor(e, matches);
        if (type) send(type, type === 'DELETED' && e.type === 'MODIFIED' ? leftAt(e) : e.object);
      }
    } else {
      for (const o of this.store.list(target.rt, { namespace: target.namespace }).items) if (matches(o)) send('ADDED', o);
    }
    // A client that hangs up mid-stream makes writes fail on the socket: never an uncaught error, and the watcher goes.
    res.on('error', () => this.watchers.delete(w));
    // What the stream starts with (the listing or the history it resumes from) is not the client falling behind.
    const w: Watcher = { res, target, matches, send, backlog: res.writableLength };
    this.watchers.add(w);
    // The stream ends after timeoutSeconds of the server's time (virtual in the simulator), as the API server ends it.
    const timeout = Number(query.get('timeoutSeconds') ?? '0');
    const cancelTimeout = timeout > 0 ? this.timer(timeout * 1000, () => writable(res) && res.end()) : undefined;
    let cancelBookmark: (() => void) | undefined;
    const bookmark = () => {
      if (!writable(res)) return;
      const metadata = { resourceVersion: this.store.resourceVersion() };
      res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: target.rt.kind, apiVersion: apiVersionOf(target), metadata } })}\n`);
      if (tag !== undefined) this.sentByWatch.set(tag, (this.sentByWatch.get(tag) ?? 0) + 1);
      cancelBookmark = this.timer(BOOKMARK_EVERY_MS, bookmark);
    };
    if (query.get('allowWatchBookmarks') === 'true') cancelBookmark = this.timer(BOOKMARK_EVERY_MS, bookmark);
    res.on('close', () => {
      this.watchers.delete(w);
      cancelBookmark?.();
      cancelTimeout?.();
      if (tag !== undefined) this.sentByWatch.delete(tag);
    });
  }
}

/** What a watch may have written and its client not yet read before the server ends the stream. */
const SLOW_WATCHER_BYTES = 32 * 2 ** 20;

const writable = (res: ServerResponse): boolean => !res.writableEnded && !res.destroyed && !res.socket?.destroyed;

const apiVersionOf = (t: Target): string => (t.rt.group ? `${t.rt.group}/${t.rt.version}` : t.rt.version);

/**
 * The event a watcher with a selector sees, as the API server's watch cache sends it: an update that makes an object
 * match is ADDED, one that makes it stop matching DELETED (a pod binding leaves a `spec.nodeName=` watch), none else.
 */
function typeFor(e: ChangeEvent, matches: (o: KubeObject) => boolean): ChangeEvent['type'] | undefined {
  const now = matches(e.object);
  if (e.type !== 'MODIFIED' || !e.old) return now ? e.type : undefined;
  const before = matches(e.old);
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

/** A DELETED for an object that stopped matching carries its content before the change, at the change's resourceVersion (as the API server). */
const leftAt = (e: ChangeEvent): KubeObject => ({ ...e.old!, metadata: { ...e.old!.metadata, resourceVersion: e.object.metadata.resourceVersion } });

const sameType = (t: Target, e: ChangeEvent): boolean => e.resource.group === t.rt.group && e.resource.resource === t.rt.resource;
