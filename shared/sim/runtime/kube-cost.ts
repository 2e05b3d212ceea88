/**
 * The Kubernetes side of the cost model (cost.ts): the fake API server hands each answer for a function's request
 * to `pace`, which delivers it once the round trip, the transfer and the function's parsing have passed on
 * virtual time — the parsing on the function's one thread, after whatever it is still parsing — and charges the
 * invocation's memory; above its size the invocation fails as Lambda's does (Runtime.OutOfMemory). Watch events
 * cost the function parsing time (its next answer waits) and replace what it holds. The LP solver's native memory,
 * once a container loads it, stays charged to that container.
 *
 * The request is matched to its invocation on the client side (node:diagnostics_channel runs subscribers in the
 * caller's async context) and on the server by the client socket's port. Everything that arrives at one virtual
 * instant is charged in a sorted order when time next moves, so a run is the same whatever order the requests
 * reached the server in.
 */
import diagnostics from 'node:diagnostics_channel';
import { WATCH_EVENT_CHANNEL } from '../../adapters/kubernetes/watch';
import { LP_MEMORY_CHANNEL } from '../../adapters/lp/memory-channel';
import type { VirtualClock } from '../clock';
import { baselineMb, continuesListing, COST_MODEL, cpuMs, FunctionOutOfMemoryError, heldKey, isListing, isProbe, isWatch, retainedPerByte } from './cost';
import type { Meter, Running } from './metering';

/** What the fake API server tells about one answer it is about to write. */
export interface PacedAnswer {
  clientPort: number;
  method: string;
  url: string;
  requestBytes: number;
  responseBytes: number;
}

interface Arrival extends PacedAnswer {
  running: Running;
  answer: () => void;
}

type ClientRequestLike = { path?: string; socket?: { localPort?: number } | null; getHeader?(name: string): unknown };

const MB = 2 ** 20;

export class KubeCost {
  private readonly requests = new Map<object, Running>();
  private readonly watches = new Map<string, { running: Running; key: string }>();
  /**
   * Collections a function read only the resourceVersion of (a LIST with `limit=1`, then a WATCH from there, as the
   * controller's bound-pods stream does): it keeps no copy, so their events are parsed but not retained.
   */
  private readonly probed = new WeakMap<Running, Set<string>>();
  private arrivals: Arrival[] = [];
  private readonly subscriptions: [string, (m: unknown) => void][] = [];

  constructor(
    private readonly clock: VirtualClock,
    private readonly meter: Meter,
    /** Ends the invocation's charged computation (runtime/compute.ts) before its answer is timed. */
    private readonly computed: (r: Running) => void = () => undefined,
  ) {}

  start(): this {
    const started = (m: unknown) => {
      const request = (m as { request?: ClientRequestLike }).request;
      const running = this.meter.running();
      if (!request || !running) return;
      this.requests.set(request, running);
      const watch = /\(watch (\d+)\)/.exec(String(request.getHeader?.('user-agent') ?? ''));
      const key = heldKey('GET', request.path ?? '/');
      if (watch && key) this.watches.set(watch[1], { running, key });
    };
    const ended = (m: unknown) => {
      const request = (m as { request?: object }).request;
      if (request) this.requests.delete(request);
    };
    const event = (m: unknown) => this.watchEvent(m as { id?: string; type?: string; bytes?: number });
    // A WASM module the function loaded (the LP solver) stays in its sandbox's memory: kept, scaled down by the heap
    // factor the model applies to what is kept, so it counts its own bytes.
    const native = (m: unknown) => {
      const r = this.meter.running();
      if (!r) return;
      r.kept.set('native:lp-solver', (m as { bytes: number }).bytes / retainedPerByte(r.key));
      this.charge(r, 0);
    };
    this.subscriptions.push(
      ['http.client.request.start', started],
      ['http.client.response.finish', ended],
      ['http.client.request.error', ended],
      [WATCH_EVENT_CHANNEL, event],
      [LP_MEMORY_CHANNEL, native],
    );
    for (const [name, fn] of this.subscriptions) diagnostics.subscribe(name, fn);
    return this;
  }

  stop(): void {
    for (const [name, fn] of this.subscriptions) diagnostics.unsubscribe(name, fn);
    this.subscriptions.length = 0;
    this.requests.clear();
    this.watches.clear();
    this.arrivals = [];
  }

  /** The server's seam: true when the answer is the model's to deliver (a function's request), false to answer now. */
  readonly pace = (a: PacedAnswer, answer: () => void): boolean => {
    let running: Running | undefined;
    for (const [request, r] of this.requests) if ((request as ClientRequestLike).socket?.localPort === a.clientPort) running = r;
    if (!running) return false;
    if (this.arrivals.length === 0) this.clock.at(this.clock.now(), () => this.flush());
    this.arrivals.push({ ...a, running, answer });
    return true;
  };

  /** Charges what arrived at this instant, in a fixed order, and schedules each answer. */
  private flush(): void {
    const now = this.clock.now();
    const batch = this.arrivals.sort(
      (x, y) =>
        x.running.sandbox.localeCompare(y.running.sandbox) ||
        x.method.localeCompare(y.method) ||
        x.url.localeCompare(y.url) ||
        x.requestBytes - y.requestBytes ||
        x.responseBytes - y.responseBytes,
    );
    this.arrivals = [];
    const m = COST_MODEL;
    for (const a of batch) {
      const r = a.running;
      if (r.outOfMemory) continue; // the sandbox is gone: nothing answers it
      r.kubeBytesReceived += a.responseBytes;
      r.kubeBytesSent += a.requestBytes;
      const key = heldKey(a.method, a.url);
      // A watch's answer is applied to the copy the function keeps (its events are counted in watchEvent); a listing
      // replaces the collection's copy, kept by the sandbox (a warm snapshot outlives the invocation); an object read
      // by name is held until the invocation ends.
      if (key !== undefined && !isWatch(a.url) && isProbe(a.url)) this.probed.set(r, (this.probed.get(r) ?? new Set()).add(key));
      else if (key !== undefined && !isWatch(a.url)) {
        const into = isListing(a.url) ? r.kept : r.held;
        into.set(key, (continuesListing(a.url) ? (into.get(key) ?? 0) : 0) + a.responseBytes);
      }
      if (!this.charge(r, a.responseBytes)) continue;
      this.computed(r);
      const bytes = a.requestBytes + a.responseBytes;
      const arrived = now + m.kubeRoundTripMs + (bytes * m.kubeTransferNsPerByte) / 1e6;
      r.cpuFreeMs = Math.max(arrived, r.cpuFreeMs) + cpuMs(bytes * m.parseCpuNsPerByte, r.memoryMb);
      this.clock.at(Math.ceil(r.cpuFreeMs), a.answer);
    }
  }

  /** A watch event the function received: its parsing occupies the thread, its object replaces the one held. */
  private watchEvent(e: { id?: string; type?: string; bytes?: number }): void {
    const w = e.id === undefined ? undefined : this.watches.get(e.id);
    if (!w || w.running.outOfMemory) return;
    const r = w.running;
    const bytes = e.bytes ?? 0;
    r.kubeBytesReceived += bytes;
    r.cpuFreeMs = Math.max(this.clock.now(), r.cpuFreeMs) + cpuMs(bytes * COST_MODEL.parseCpuNsPerByte, r.memoryMb);
    if (this.probed.get(r)?.has(w.key)) {
      this.charge(r, bytes);
      return;
    }
    const into = r.kept.has(w.key) ? r.kept : r.held;
    const held = into.get(w.key) ?? 0;
    if (e.type === 'ADDED') into.set(w.key, held + bytes);
    if (e.type === 'DELETED') into.set(w.key, Math.max(0, held - bytes));
    this.charge(r, bytes);
  }

  /**
   * The invocation's modelled memory with a response of `transientBytes` being parsed: false (and the invocation
   * failed, as Lambda kills the sandbox) when it exceeds the function's size.
   */
  private charge(r: Running, transientBytes: number): boolean {
    let held = 0;
    for (const b of r.held.values()) held += b;
    for (const b of r.kept.values()) held += b;
    const mb = baselineMb(r.key) + (held * retainedPerByte(r.key) + transientBytes * COST_MODEL.transientPerByte) / MB;
    r.peakMb = Math.max(r.peakMb, mb);
    if (mb <= r.memoryMb) return true;
    r.fail(
      new FunctionOutOfMemoryError(
        `RequestId: ${r.sandbox} Error: Runtime exited with error: signal: killed (modelled memory ${Math.ceil(mb)} MB > ${r.memoryMb} MB)`,
      ),
    );
    return false;
  }
}
