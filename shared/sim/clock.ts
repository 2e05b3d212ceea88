/**
 * Virtual time for the simulator: the Clock port (now, sleep) on a simulated timeline, plus timers for the
 * simulated world. Time only moves when the driver calls `advance()`, which the runtime does once every
 * in-flight activity (a handler invocation, a Step Functions execution) is waiting on this clock.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../core/ports';
import { epochMs, type EpochMs } from '../core/time';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** Something in flight (a Lambda invocation, an execution): time may advance only while all are sleeping. */
export interface Activity {
  readonly id: number;
  readonly name: string;
  sleeping: number;
  /** Invocations made so far within this activity (deterministic request ids). */
  invocations: number;
  /** Virtual time the activity started. */
  readonly startedMs: number;
  /** Log lines written so far within this activity (their order within it). */
  lines: number;
}

export class VirtualClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private timers: Timer[] = [];
  private readonly active = new Set<Activity>();
  /** How many of `active` are not sleeping (idle() asks at every settle turn: counted, not scanned). */
  private awake = 0;
  private readonly context = new AsyncLocalStorage<Activity>();
  private activitySeq = 0;
  private readonly probes = new Set<() => string | undefined>();
  private readonly progressCounters = new Set<() => number>();

  constructor(readonly startMs: number) {
    this.nowMs = startMs;
  }

  /** Counts settle's turns: work between two turns ran in one stretch of the event loop (runtime/compute.ts). */
  turn = 0;

  now(): EpochMs {
    return epochMs(this.nowMs);
  }

  /** Seconds since the start of the simulation. */
  elapsedSeconds(): number {
    return (this.nowMs - this.startMs) / 1000;
  }

  private halted = false;

  /**
   * Ends this timeline (the world is closing): every sleeper stays asleep for good, even one an event would
   * wake, so functions still in flight (a controller whose watches lose their server) go quiet instead of
   * writing into the next world's log.
   */
  halt(): void {
    this.halted = true;
    this.timers = [];
  }

  /** Resolves when virtual time reaches now + ms; the calling activity counts as waiting meanwhile. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.halted) return new Promise<void>(() => undefined);
    if (signal?.aborted) return Promise.resolve();
    const activity = this.context.getStore();
    if (activity) this.addSleeping(activity, 1);
    return new Promise<void>((resolve) => {
      let woken = false;
      const wake = () => {
        if (woken || this.halted) return;
        woken = true;
        cancel();
        signal?.removeEventListener('abort', wake);
        if (activity) this.addSleeping(activity, -1);
        resolve();
      };
      // Aborting wakes the activity at once (synchronously), so time cannot move past the event that woke it.
      const cancel = this.at(this.nowMs + Math.max(0, ms), wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  /** Runs `fire` when virtual time reaches `atMs` (callbacks at the same time run in the order added). */
  at(atMs: number, fire: () => void): () => void {
    const timer: Timer = { at: Math.max(atMs, this.nowMs), seq: this.seq++, fire };
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const t = this.timers[mid];
      if (t.at < timer.at || (t.at === timer.at && t.seq < timer.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  after(ms: number, fire: () => void): () => void {
    return this.at(this.nowMs + ms, fire);
  }

  /** Calls `fire` every `intervalMs`, first at `firstAtMs` (default now + interval). */
  every(intervalMs: number, fire: () => void, firstAtMs = this.nowMs + intervalMs): () => void {
    let cancel = () => {};
    const schedule = (at: number) => {
      cancel = this.at(at, () => {
        schedule(at + intervalMs);
        fire();
      });
    };
    schedule(firstAtMs);
    return () => cancel();
  }

  /** Time of the next timer, if any. */
  nextDue(): number | undefined {
    return this.timers[0]?.at;
  }

  /** Moves to the next timer's time (never past `limitMs`) and fires every timer due then; false when none is due by the limit. */
  advance(limitMs: number): boolean {
    const next = this.timers[0];
    if (!next || next.at > limitMs) {
      this.nowMs = Math.max(this.nowMs, limitMs);
      return false;
    }
    this.nowMs = Math.max(this.nowMs, next.at);
    while (this.timers.length > 0 && this.timers[0].at <= this.nowMs) {
      const t = this.timers.shift() as Timer;
      t.fire();
    }
    return true;
  }

  /** Runs `fn` as a tracked activity: virtual time waits for it unless it is sleeping on this clock. */
  track<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const activity: Activity = { id: ++this.activitySeq, name, sleeping: 0, invocations: 0, startedMs: this.nowMs, lines: 0 };
    this.active.add(activity);
    this.awake++;
    return this.context.run(activity, async () => {
      try {
        return await fn();
      } finally {
        this.active.delete(activity);
        if (activity.sleeping <= 0) this.awake--;
      }
    });
  }

  /** Counts an activity's sleeps (it is awake while none is pending), keeping `awake` for the activities in flight. */
  private addSleeping(activity: Activity, delta: 1 | -1): void {
    const wasAwake = activity.sleeping <= 0;
    activity.sleeping += delta;
    if (this.active.has(activity) && wasAwake !== activity.sleeping <= 0) this.awake += wasAwake ? -1 : 1;
  }

  /** The activity the caller runs in (undefined outside any). */
  current(): Activity | undefined {
    return this.context.getStore();
  }

  /**
   * Adds a check of outside work that must finish before time moves (e.g. HTTP requests in flight): it returns
   * a description while busy, undefined when idle. Returns the remove function.
   */
  addBusyProbe(probe: () => string | undefined, progress?: () => number): () => void {
    this.probes.add(probe);
    if (progress) this.progressCounters.add(progress);
    return () => {
      this.probes.delete(probe);
      if (progress) this.progressCounters.delete(progress);
    };
  }

  /** Work completed by the busy probes' subjects so far (e.g. HTTP requests answered): a change is progress. */
  progress(): number {
    let n = 0;
    for (const p of this.progressCounters) n += p();
    return n;
  }

  /** True when no tracked activity is running (each is absent or waiting on the clock) and every probe is idle. */
  idle(): boolean {
    if (this.awake > 0) return false;
    for (const p of this.probes) if (p() !== undefined) return false;
    return true;
  }

  /** What keeps time from moving, for diagnostics. */
  busy(): string[] {
    return [
      ...[...this.active].filter((a) => a.sleeping <= 0).map((a) => a.name),
      ...[...this.probes].map((p) => p()).filter((x): x is string => x !== undefined),
    ];
  }

  activeCount(): number {
    return this.active.size;
  }
}

/**
 * Waits (in real time) until every tracked activity is waiting on the virtual clock. Stalled means no progress for
 * `timeoutMs` of real time — what keeps time from moving stays the same, no probed work completes (e.g. the same
 * number of HTTP requests in flight, none answered) and the process is not busy elsewhere (a long synchronous
 * computation holds settle's own turns back) — not slow progress: a large cluster's instant (thousands
 * of writes, a 50,000-pod LIST) on a loaded machine may take minutes and is not a hang.
 */
export async function settle(clock: VirtualClock, opts: { quietTurns?: number; timeoutMs?: number } = {}): Promise<void> {
  const quietTurns = opts.quietTurns ?? 3;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let deadline = Date.now() + timeoutMs;
  let lastBusy = '';
  let lastProgress = -1;
  let quiet = 0;
  let spins = 0;
  let lastTurn = Date.now();
  while (quiet < quietTurns) {
    // A turn that came long after the last one: the process was busy (a function's long computation) — work, not a hang.
    const turn = Date.now();
    clock.turn++;
    if (turn - lastTurn > BLOCKED_TURN_MS) deadline = turn + timeoutMs;
    lastTurn = turn;
    if (clock.idle()) {
      quiet++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    } else {
      quiet = 0;
      // Loopback I/O usually completes within a few loop turns: spin briefly, then yield the CPU (and look for progress).
      if (++spins % 64 !== 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const busy = clock.busy().join(', ');
      const progress = clock.progress();
      if (busy !== lastBusy || progress !== lastProgress) {
        lastBusy = busy;
        lastProgress = progress;
        deadline = Date.now() + timeoutMs;
      } else if (Date.now() > deadline) {
        throw new SimulationStalledError(`activities did not settle: ${busy}`);
      }
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
  }
}

/** A gap between two of settle's turns longer than this means the event loop was running something else. */
const BLOCKED_TURN_MS = 1_000;

class SimulationStalledError extends Error {
  override readonly name = 'SimulationStalledError' as const;
}
