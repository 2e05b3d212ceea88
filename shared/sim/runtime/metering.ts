/**
 * Metering for the controller's own AWS bill (bill.ts turns it into `controller` in `simulate -o json`): what
 * nodewright's functions, state machines, queue, table, metrics and logs use in a simulated run.
 * docs/controller-cost.md explains every figure and assumption.
 *
 * Metering is per function key and generic: every invocation that goes through the production binding's
 * `invoke` (schedules, the queue, Step Functions Tasks, or a function invoking another) is metered, so a
 * function added to infra/functions is billed without touching this file. The simulator must not be kinder
 * than the world: the work virtual time could not see (CPU, API round trips, INIT) is charged on virtual time
 * (cost.ts, kube-cost.ts, production.ts), so an invocation is billed its virtual duration.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import type { VirtualClock } from '../clock';
import { awsCallMs, baselineMb, FunctionOutOfMemoryError, retainedPerByte } from './cost';

/**
 * What the bill adds to virtual time, and the billing constants. The work itself (handler CPU, Kubernetes and AWS
 * round trips, parsing) now advances virtual time (cost.ts), so an invocation is billed its virtual duration.
 */
export const BILLING_ASSUMPTIONS = {
  /** Billed INIT phase of a cold start (module load of the bundle; TOOLCHAIN.md §6 measured ~0.4 s on a laptop). */
  initMs: 1000,
  /** A sandbox idle longer than this is assumed reclaimed: the next invocation is a cold start. */
  warmIdleSeconds: 300,
  /** Lambda's SQS event-source mapping: concurrent long-polling pollers while the queue is idle … */
  sqsPollers: 5,
  /** … each a ReceiveMessage with a 20 s wait. */
  sqsLongPollSeconds: 20,
  /** START / END / REPORT platform lines plus the EMF metrics line, per invocation. */
  logBytesPerInvocation: 700,
  /** Powertools envelope keys of a log line (timestamp, service, cold_start, function_arn, _name, _memory_size, _request_id). */
  logEnvelopeBytes: 320,
} as const;

/** AWS calls counted one by one in the bill (`slowAwsCalls`): the ones that take seconds. */
const SLOW_AWS_CALLS = new Set(['CreateFleetCommand']);

export interface FunctionUsage {
  invocations: number;
  coldStarts: number;
  /** Start to end on the virtual clock, summed. */
  virtualMs: number;
  kubeRequests: number;
  slowAwsCalls: number;
  /** Billed duration (virtual, INIT included), each invocation rounded up to 1 ms. */
  billedMs: number;
  logBytes: number;
}

/** Over the whole run (not reset with the bill): what `functions` in the result reports. */
export interface FunctionRunStats {
  invocations: number;
  kubeRequests: number;
  kubeBytesReceived: number;
  kubeBytesSent: number;
  /** The largest modelled peak memory of an invocation (cost.ts). */
  peakMemoryMb: number;
  maxDurationMs: number;
  outOfMemory: number;
  /** Invocations that ran into their timeout (Sandbox.Timedout; an injected timeout fault included). */
  timedOut: number;
}

/** One invocation in flight, as the cost model (kube-cost.ts) charges it. */
export interface Running {
  key: string;
  /** `<function>#<n>`: the sandbox (container) serving this invocation. */
  sandbox: string;
  memoryMb: number;
  kubeRequests: number;
  slowAwsCalls: number;
  kubeBytesReceived: number;
  kubeBytesSent: number;
  /** Virtual time until which the function's one thread is busy parsing what it received. */
  cpuFreeMs: number;
  /** Raw bytes of the objects this invocation read by name, per key (cost.ts heldKey): garbage once it ends. */
  held: Map<string, number>;
  /** Raw bytes of the latest listing per collection key, kept by the sandbox across invocations (a warm snapshot). */
  kept: Map<string, number>;
  peakMb: number;
  /** Set when the modelled memory exceeded the size: the invocation fails and its sandbox is discarded. */
  outOfMemory?: Error;
  timedOut?: boolean;
  fail(e: Error): void;
}

interface Sandbox {
  id: number;
  busy: boolean;
  lastEndMs: number;
}

function addStats(stats: Map<string, FunctionRunStats>, running: Running, virtualMs: number): void {
  const st = stats.get(running.key) ?? {
    invocations: 0,
    kubeRequests: 0,
    kubeBytesReceived: 0,
    kubeBytesSent: 0,
    peakMemoryMb: 0,
    maxDurationMs: 0,
    outOfMemory: 0,
    timedOut: 0,
  };
  st.invocations++;
  st.kubeRequests += running.kubeRequests;
  st.kubeBytesReceived += running.kubeBytesReceived;
  st.kubeBytesSent += running.kubeBytesSent;
  st.peakMemoryMb = Math.max(st.peakMemoryMb, running.peakMb);
  st.maxDurationMs = Math.max(st.maxDurationMs, virtualMs);
  st.outOfMemory += running.outOfMemory ? 1 : 0;
  st.timedOut += running.timedOut ? 1 : 0;
  stats.set(running.key, st);
}

type SendFn = (this: unknown, command: unknown, ...rest: unknown[]) => unknown;
type MetricsLike = {
  publishStoredMetrics(): unknown;
  captureColdStartMetric(functionName?: string): void;
  hasStoredMetrics(): boolean;
  serializeMetrics(): unknown;
};
type Emf = { _aws?: { CloudWatchMetrics?: { Namespace?: string; Dimensions?: string[][]; Metrics?: { Name: string }[] }[] } } & Record<string, unknown>;

/** Counts what one world's functions use. One per world; `stop()` undoes every patch and subscription. */
export class Meter {
  private readonly current = new AsyncLocalStorage<Running>();
  private readonly sandboxes = new Map<string, Sandbox[]>();
  private readonly stops: (() => void)[] = [];
  private readonly coldStartFunctions = new Set<string>();
  private defaultDimensions: { namespace: string; dims: Record<string, string> } | undefined;
  readonly functions = new Map<string, FunctionUsage>();
  /** Every AWS API call each function made: function key → `<ClientClass>.<CommandClass>` (for the IAM test). */
  readonly awsCalls = new Map<string, Set<string>>();
  /** Distinct CloudWatch metrics emitted: `namespace|name|{dimensions}`. */
  readonly metricKeys = new Set<string>();
  logBytes = 0;
  readonly dynamo = { readRequestUnits: 0, writeRequestUnits: 0 };
  private readonly runStats = new Map<string, FunctionRunStats>();
  private readonly inFlight = new Map<Running, number>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly memoryOf: (key: string) => number = () => 512,
  ) {
    const onRequest = () => {
      const r = this.current.getStore();
      if (r) r.kubeRequests++;
    };
    diagnostics.subscribe('http.client.request.start', onRequest);
    this.stops.push(() => diagnostics.unsubscribe('http.client.request.start', onRequest));
  }

  /** The invocation the caller runs in, if any. */
  running(): Running | undefined {
    return this.current.getStore();
  }

  private usage(key: string): FunctionUsage {
    let u = this.functions.get(key);
    if (!u) {
      u = { invocations: 0, coldStarts: 0, virtualMs: 0, kubeRequests: 0, slowAwsCalls: 0, billedMs: 0, logBytes: 0 };
      this.functions.set(key, u);
    }
    return u;
  }

  /** Starts counting again (warm sandboxes and metric names are kept): a bill for the steady state only. */
  reset(): void {
    for (const u of this.functions.values())
      Object.assign(u, { invocations: 0, coldStarts: 0, virtualMs: 0, kubeRequests: 0, slowAwsCalls: 0, billedMs: 0, logBytes: 0 });
    this.dynamo.readRequestUnits = 0;
    this.dynamo.writeRequestUnits = 0;
    this.logBytes = 0;
  }

  private sandboxSeq = 0;
  private readonly kept = new Map<string, Map<string, number>>();

  /** What a sandbox keeps between invocations (cost model); forgotten when the sandbox is reclaimed or fails. */
  private keptBy(sandbox: string): Map<string, number> {
    let m = this.kept.get(sandbox);
    if (!m) this.kept.set(sandbox, (m = new Map()));
    return m;
  }

  private reclaimed(sandbox: string): void {
    this.kept.delete(sandbox);
    this.onReclaim?.(sandbox);
  }

  /** Told when a sandbox is reclaimed (`<function>#<n>`), so what that container built can be dropped. */
  onReclaim?: (sandbox: string) => void;

  /** The sandbox serving the current invocation (`<function>#<n>`), or undefined outside one. */
  sandboxKey(): string | undefined {
    return this.current.getStore()?.sandbox;
  }

  /**
   * Runs one invocation of `key` and bills it: its virtual duration, a cold start when no warm sandbox is
   * free. `run` is told whether this invocation starts a new sandbox (the runtime then spends the INIT phase).
   */
  async invocation<T>(key: string, run: (cold: boolean, died: Promise<never>) => Promise<T>): Promise<T> {
    const a = BILLING_ASSUMPTIONS;
    const startMs = this.clock.now();
    const pool: Sandbox[] = [];
    for (const s of this.sandboxes.get(key) ?? []) {
      if (s.busy || startMs - s.lastEndMs <= a.warmIdleSeconds * 1000) pool.push(s);
      // Reclaimed sandboxes take their container's state with them (the composition root forgets it).
      else this.reclaimed(`${key}#${s.id}`);
    }
    this.sandboxes.set(key, pool);
    let sandbox = pool.find((s) => !s.busy);
    const cold = !sandbox;
    if (!sandbox) {
      sandbox = { id: ++this.sandboxSeq, busy: true, lastEndMs: startMs };
      pool.push(sandbox);
    }
    sandbox.busy = true;
    let fail: (e: Error) => void = () => undefined;
    const died = new Promise<never>((_, reject) => (fail = reject));
    died.catch(() => undefined);
    const kept = this.keptBy(`${key}#${sandbox.id}`);
    const keptBytes = [...kept.values()].reduce((a, b) => a + b, 0);
    const running: Running = {
      key,
      sandbox: `${key}#${sandbox.id}`,
      memoryMb: this.memoryOf(key),
      kubeRequests: 0,
      slowAwsCalls: 0,
      kubeBytesReceived: 0,
      kubeBytesSent: 0,
      cpuFreeMs: startMs,
      held: new Map(),
      kept,
      // What the sandbox kept from earlier invocations is in memory from the start.
      peakMb: baselineMb(key) + (keptBytes * retainedPerByte(key)) / 2 ** 20,
      fail: (e) => {
        running.outOfMemory ??= e;
        fail(e);
      },
    };
    this.inFlight.set(running, startMs);
    // A sandbox larger than its size after INIT fails every invocation, a keep-warm ping's included.
    if (running.peakMb > running.memoryMb)
      running.fail(
        new FunctionOutOfMemoryError(
          `RequestId: ${running.sandbox} Error: Runtime exited with error: signal: killed (modelled memory ${running.peakMb} MB > ${running.memoryMb} MB)`,
        ),
      );
    try {
      return await this.current.run(running, () => run(cold, died));
    } catch (e) {
      if ((e as Error | undefined)?.name === 'Sandbox.Timedout') running.timedOut = true;
      throw e;
    } finally {
      this.inFlight.delete(running);
      this.finish(running, sandbox, startMs, cold);
    }
  }

  /** Bills an ended invocation; a sandbox that ran out of memory is discarded (the next invocation is cold). */
  private finish(running: Running, sandbox: Sandbox, startMs: number, cold: boolean): void {
    const endMs = this.clock.now();
    sandbox.busy = false;
    sandbox.lastEndMs = endMs;
    if (running.outOfMemory) {
      this.sandboxes.set(
        running.key,
        (this.sandboxes.get(running.key) ?? []).filter((s) => s !== sandbox),
      );
      this.reclaimed(running.sandbox);
    }
    const u = this.usage(running.key);
    const virtualMs = endMs - startMs;
    u.invocations++;
    u.coldStarts += cold ? 1 : 0;
    u.virtualMs += virtualMs;
    u.kubeRequests += running.kubeRequests;
    u.slowAwsCalls += running.slowAwsCalls;
    // The virtual duration holds the INIT phase, the handler's CPU and every round trip (cost.ts).
    u.billedMs += Math.ceil(virtualMs);
    u.logBytes += BILLING_ASSUMPTIONS.logBytesPerInvocation;
    this.logBytes += BILLING_ASSUMPTIONS.logBytesPerInvocation;
    addStats(this.runStats, running, virtualMs);
  }

  /** Per function over the whole run so far, invocations still running (a controller) included as they stand. */
  functionStats(): Map<string, FunctionRunStats> {
    const out = new Map([...this.runStats].map(([k, v]) => [k, { ...v }]));
    for (const [running, startMs] of this.inFlight) addStats(out, running, this.clock.now() - startMs);
    return out;
  }

  /** One log line a function wrote (Powertools JSON): its own keys, plus the fixed-size envelope. */
  logLine(line: Record<string, unknown> | string): void {
    const bytes = (typeof line === 'string' ? Buffer.byteLength(line) : Buffer.byteLength(JSON.stringify(line)) + BILLING_ASSUMPTIONS.logEnvelopeBytes) + 1;
    this.logBytes += bytes;
    const r = this.current.getStore();
    if (r) this.usage(r.key).logBytes += bytes;
  }

  /** A read of `bytes` (item, or the items a Query evaluated): 1 RRU per 4 KB strongly consistent, half eventually. */
  dynamoRead(bytes: number, consistent: boolean): void {
    this.dynamo.readRequestUnits += Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
  }

  /** A write (put, delete, also when its condition fails) of an item of `bytes`: 1 WRU per KB. */
  dynamoWrite(bytes: number): void {
    this.dynamo.writeRequestUnits += Math.max(1, Math.ceil(bytes / 1024));
  }

  /**
   * Times (cost.ts awsCallMs) and counts the AWS API calls the functions make through these (mocked) client classes.
   * Call after the mocks are installed and undo (the returned function) before they are restored.
   */
  watchAwsClients(classes: { prototype: object; name: string }[]): () => void {
    const undo: (() => void)[] = [];
    const calls = this.awsCalls;
    for (const c of classes) {
      const proto = c.prototype as { send: SendFn };
      const original = proto.send;
      const current = this.current;
      const clock = this.clock;
      proto.send = function (this: unknown, command: unknown, ...rest: unknown[]) {
        const r = current.getStore();
        if (r) {
          const set = calls.get(r.key) ?? new Set<string>();
          set.add(`${c.name}.${(command as { constructor?: { name?: string } } | undefined)?.constructor?.name ?? '?'}`);
          calls.set(r.key, set);
        }
        const name = (command as { constructor?: { name?: string } } | undefined)?.constructor?.name ?? '';
        if (!r) return original.call(this, command, ...rest);
        if (SLOW_AWS_CALLS.has(name)) r.slowAwsCalls++;
        // The call's round trip (and service time) passes on virtual time before the simulated AWS answers.
        return clock.sleep(awsCallMs(name)).then(() => original.call(this, command, ...rest));
      };
      undo.push(() => {
        proto.send = original;
      });
    }
    return () => undo.reverse().forEach((u) => u());
  }

  private recordEmf(emf: Emf): void {
    for (const d of emf._aws?.CloudWatchMetrics ?? []) {
      const ns = d.Namespace ?? '';
      for (const set of d.Dimensions ?? [[]]) {
        const dims = Object.fromEntries(set.map((k) => [k, String(emf[k] ?? '')]));
        if (!this.defaultDimensions) this.defaultDimensions = { namespace: ns, dims };
        for (const m of d.Metrics ?? []) this.metricKeys.add(`${ns}|${m.Name}|${JSON.stringify(dims)}`);
      }
    }
  }

  /**
   * Counts the CloudWatch metrics the Powertools Metrics instance would emit (the simulator keeps it disabled):
   * every flushed EMF document, and a ColdStart metric per function (each deployed function has its own cold
   * starts, though one process serves them all here).
   */
  watchMetrics(metrics: MetricsLike): () => void {
    const target = metrics as unknown as Record<string, unknown>;
    const publish = metrics.publishStoredMetrics.bind(metrics);
    const coldStart = metrics.captureColdStartMetric.bind(metrics);
    target.publishStoredMetrics = () => {
      if (metrics.hasStoredMetrics()) this.recordEmf(metrics.serializeMetrics() as Emf);
      return publish();
    };
    target.captureColdStartMetric = (functionName?: string) => {
      if (functionName) this.coldStartFunctions.add(functionName);
      coldStart(functionName);
    };
    return () => {
      delete target.publishStoredMetrics;
      delete target.captureColdStartMetric;
    };
  }

  /** Distinct custom metrics, ColdStart{default dimensions, function_name} included. */
  customMetrics(): string[] {
    const keys = new Set(this.metricKeys);
    const base = this.defaultDimensions ?? { namespace: 'nodewright', dims: {} };
    for (const fn of this.coldStartFunctions) keys.add(`${base.namespace}|ColdStart|${JSON.stringify({ ...base.dims, function_name: fn })}`);
    return [...keys].sort();
  }

  stop(): void {
    for (const s of this.stops.splice(0)) s();
  }
}
