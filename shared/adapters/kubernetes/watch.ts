/**
 * ClusterWatch over plain HTTP watch streams: one per kind, objects mapped to the core model. As client-go's
 * reflector does, a stream without a resourceVersion first LISTs the current state (paged), delivers each object
 * as ADDED and then SYNCED with the list's resourceVersion, and watches from there — so the controller knows when
 * the listing is complete and can drop what it no longer has. (The API's `sendInitialEvents` + the
 * `k8s.io/initial-events-end` bookmark would say the same in one request, but needs the WatchList feature on the
 * server; LIST-then-WATCH works on every Kubernetes version EKS runs.) BOOKMARKs are asked for and carry their
 * stream's kind. Pods come as two streams split by field selector: `pods` (spec.nodeName empty: the pending ones,
 * a short list) and `boundpods` (spec.nodeName set), which is never listed — a LIST of one object gives the
 * collection's resourceVersion and it watches from there (SYNCED at once, no ADDED).
 *
 * Every request has a connect timeout on the injected clock: one the server does not answer is aborted — its
 * connection closed, not left to linger — and the stream reported closed, so the controller retries it. LISTs and
 * watches carry the controller's User-Agent (audit logs; the simulator counts what the controller lists). Every
 * received watch line is also published on the diagnostics channel `nodewright:watch-event` (no cost without a
 * subscriber) with its length, which is how the simulator knows an event has reached the controller before it lets time
 * move, and what the controller parses (its CPU and memory in the simulator's cost model).
 */
import diagnostics from 'node:diagnostics_channel';
import type { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import fetch, { type Headers, type RequestInit } from 'node-fetch';
import { systemClock } from '../clock';
import { httpCode } from './rest';
import { firstOrTimeout, type Sleep } from './timeout';
import { nodeClaimFromKube, nodeClassFromKube, nodeFromKube, nodePoolFromKube, podFromKube } from '../../core/model/from-kube';
import type { ClusterWatch, WatchClosed, WatchedKind, WatchedObject, WatchEvent, WatchHandle } from '../../core/ports/cluster-watch';
import { errorText } from '../../core/errors';

type Json = Record<string, unknown>;

export const WATCH_EVENT_CHANNEL = 'nodewright:watch-event';
/** The controller's watches identify themselves (API server audit logs; the simulator counts their events). */
const CONTROLLER_USER_AGENT = 'nodewright-controller';
/**
 * Objects per LIST page. client-go's reflector pages by 500; the controller (160 MB) pages by 100, because a page is
 * parsed whole: 500 EKS-sized nodes are ~4.5 MB of JSON and ~3 times that while parsed, the largest part of the
 * controller's peak beside its runtime. A re-list happens at a start or after a 410, so the extra round trips
 * (50 pages for 5,000 nodes, the kinds listed side by side) cost about a second there.
 */
const LIST_PAGE = 100;

const PATHS: Record<WatchedKind, string> = {
  pods: '/api/v1/pods',
  boundpods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  nodeclaims: '/apis/karpenter.sh/v1/nodeclaims',
  nodepools: '/apis/karpenter.sh/v1/nodepools',
  nodeclasses: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
};

/** The pods streams' field selectors: a pod binding leaves `pods` (DELETED) and enters `boundpods` (ADDED). */
const FIELD_SELECTORS: Partial<Record<WatchedKind, string>> = { pods: 'spec.nodeName=', boundpods: 'spec.nodeName!=' };

const channel = diagnostics.channel(WATCH_EVENT_CHANNEL);

function mapObject(kind: WatchedKind, o: Json): WatchedObject | undefined {
  const name = String((o.metadata as Json | undefined)?.name ?? '');
  try {
    switch (kind) {
      case 'pods':
      case 'boundpods':
        return { kind, name, pod: podFromKube(o) };
      case 'nodes':
        return { kind, name, node: nodeFromKube(o) };
      case 'nodeclaims':
        return { kind, name, nodeClaim: nodeClaimFromKube(o) };
      case 'nodepools':
        return { kind, name, nodePool: nodePoolFromKube(o) };
      case 'nodeclasses':
        return { kind, name, nodeClass: nodeClassFromKube(o) };
    }
  } catch {
    // An object the mappers refuse is not ours to act on; an invalid pool or class still changes what is ready.
    return kind === 'nodepools' || kind === 'nodeclasses' ? { kind, name } : undefined;
  }
}

let watchSeq = 0;

/** A process-wide id for one watch request (its User-Agent tag and its `nodewright:watch-event` messages). */
export function nextWatchId(): string {
  return String(++watchSeq);
}

/** One stream's callbacks, silenced once it is closed or stopped. */
interface Sink {
  kind: WatchedKind;
  signal: AbortSignal;
  emit(e: WatchEvent): void;
  close(why: WatchClosed): void;
}

export interface KubeClusterWatchOptions {
  /** A request that gets no answer (no response headers; for a LIST page, no body) within this long is given up and aborted (default 20 s). */
  connectTimeoutMs?: number;
  /** The composition root's clock sleep (virtual time in the simulator); default the wall clock. */
  sleep?: Sleep;
}

export class KubeClusterWatch implements ClusterWatch {
  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: KubeClusterWatchOptions = {},
  ) {}

  /** Resolves at once; the stream's events and its end (a failure to open included) come through the callbacks. */
  async watch(
    kind: WatchedKind,
    resourceVersion: string | undefined,
    onEvent: (e: WatchEvent) => void,
    onClosed: (why: WatchClosed) => void,
  ): Promise<WatchHandle> {
    const abort = new AbortController();
    let closed = false;
    const sink: Sink = {
      kind,
      signal: abort.signal,
      emit: (e) => {
        if (!closed) onEvent(e);
      },
      close: (why) => {
        if (closed) return;
        closed = true;
        abort.abort();
        onClosed(why);
      },
    };
    void this.run(sink, resourceVersion).catch((e: unknown) => sink.close({ gone: httpCode(e) === 410, error: `watch ${kind}: ${errorText(e)}` }));
    return {
      stop: () => {
        closed = true;
        abort.abort();
      },
    };
  }

  private async run(sink: Sink, resourceVersion: string | undefined): Promise<void> {
    const from = resourceVersion ?? (await this.list(sink));
    if (!sink.signal.aborted) await this.stream(sink, from);
  }

  /**
   * `call` with its own abort: given up and aborted (its connection closed) after the connect timeout, and aborted
   * whenever the stream is stopped — a watch's response body too, long after it answered.
   */
  private async bounded<T>(sink: Sink, what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const request = new AbortController();
    sink.signal.addEventListener('abort', () => request.abort(), { once: true });
    const ms = this.opts.connectTimeoutMs ?? 20_000;
    const r = await firstOrTimeout(call(request.signal), ms, this.opts.sleep ?? systemClock.sleep);
    if (r.ok) return r.value;
    request.abort();
    throw new Error(`${what}: no answer within ${ms / 1000} s`);
  }

  /**
   * LISTs the current state page by page, each object as ADDED, then SYNCED; returns the list's resourceVersion.
   * An edge-only stream (`boundpods`) lists one object, only for the collection's resourceVersion, and delivers none.
   */
  private async list(sink: Sink): Promise<string> {
    const edges = sink.kind === 'boundpods';
    let token: string | undefined;
    let listedAt: string | undefined;
    do {
      const query: Record<string, string> = { limit: String(edges ? 1 : LIST_PAGE), ...(token ? { continue: token } : {}) };
      const page = await this.bounded(sink, `list ${sink.kind}`, async (signal) => {
        const res = await this.get(sink.kind, query, signal);
        const text = await res.text();
        if (res.status !== 200) throw Object.assign(new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`), { code: res.status });
        return JSON.parse(text) as { items?: Json[]; metadata?: { resourceVersion?: string; continue?: string } };
      });
      // Pages after the first are served at the first one's resourceVersion: the watch starts there.
      listedAt ??= page.metadata?.resourceVersion;
      if (edges) break;
      for (const item of page.items ?? []) {
        const object = mapObject(sink.kind, item);
        if (object) sink.emit({ type: 'ADDED', object });
      }
      token = page.metadata?.continue || undefined;
    } while (token && !sink.signal.aborted);
    if (!listedAt) throw new Error(`list ${sink.kind}: no resourceVersion in the answer`);
    sink.emit({ type: 'SYNCED', kind: sink.kind, resourceVersion: listedAt });
    return listedAt;
  }

  /** A GET of `kind`'s collection (its field selector added to `query`), as the controller. */
  private async get(kind: WatchedKind, query: Record<string, string>, signal: AbortSignal, watchId?: string) {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('KubeConfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/+$/, '') + PATHS[kind]);
    const fieldSelector = FIELD_SELECTORS[kind];
    for (const [k, v] of Object.entries({ ...query, ...(fieldSelector ? { fieldSelector } : {}) })) url.searchParams.set(k, v);
    const init = await this.kc.applyToFetchOptions({ method: 'GET' });
    (init.headers as Headers).set('Accept', 'application/json');
    (init.headers as Headers).set('User-Agent', `${CONTROLLER_USER_AGENT} (${watchId === undefined ? 'list' : `watch ${watchId}`})`);
    const res = await fetch(url.toString(), { ...init, method: 'GET', signal } as RequestInit);
    return Object.assign(res, { agent: (init as { agent?: Agent }).agent });
  }

  /** Watches from `resourceVersion` until the server ends the stream, it fails, or it is stopped. */
  private async stream(sink: Sink, resourceVersion: string): Promise<void> {
    const { kind } = sink;
    const id = nextWatchId();
    const query = { watch: 'true', allowWatchBookmarks: 'true', resourceVersion };
    const res = await this.bounded(sink, `watch ${kind}`, (signal) => this.get(kind, query, signal, id));
    if (res.status !== 200) {
      res.body.resume();
      return sink.close({ gone: res.status === 410, error: `watch ${kind}: HTTP ${res.status}` });
    }
    // A stream can be quiet for minutes: TCP keep-alive finds a connection that died under it.
    for (const socket of Object.values(res.agent?.sockets ?? {}).flat()) socket?.setKeepAlive(true, 30_000);
    const failed = (e: Error) => sink.close({ gone: false, error: `watch ${kind}: ${e.message}` });
    res.body.on('error', failed);
    res.body.on('end', () => sink.close({ gone: false }));
    const lines = createInterface({ input: res.body });
    lines.on('error', failed); // readline passes its input's errors on
    lines.on('line', (line: string) => this.received(sink, id, line));
  }

  private received(sink: Sink, id: string, line: string): void {
    let event: { type?: string; object?: Json };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    const { kind } = sink;
    const type = String(event.type);
    if (channel.hasSubscribers) channel.publish({ id, kind, type, bytes: line.length });
    const o = event.object ?? {};
    if (type === 'ERROR') {
      const code = Number(o.code);
      return sink.close({ gone: code === 410, error: `watch ${kind}: ${String(o.message ?? o.reason ?? code)}` });
    }
    const rv = (o.metadata as Json | undefined)?.resourceVersion;
    if (type === 'BOOKMARK') {
      if (typeof rv === 'string') sink.emit({ type: 'BOOKMARK', kind, resourceVersion: rv });
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const object = mapObject(kind, o);
    if (object) sink.emit({ type, object, ...(typeof rv === 'string' ? { resourceVersion: rv } : {}) });
  }
}
