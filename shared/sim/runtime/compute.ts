/**
 * A function's own long computations (a disruption search, a plan for thousands of pods, a large snapshot mapped
 * into the model), charged on virtual time. Virtual time stands still while code runs: without this, a search
 * bounded by its clock (Karpenter's 1-minute multi-node limit) would never stop in the simulator, and a function
 * could compute for minutes of real time at no virtual cost and never time out — a simulator kinder than Lambda.
 *
 * Measured, not counted: a stretch is the CPU time between an invocation's clock reading and the end of the
 * synchronous work it is part of (the next microtask checkpoint), or another invocation's clock reading. A
 * stretch of at least `thresholdMs` is charged at the function's CPU share (cost.ts `cpuShare`: a 1,024 MB function
 * has 0.58 of a vCPU): the invocation's clock moves while it computes (so its own time limits and
 * `getRemainingTimeInMillis` see it), and its next Kubernetes answer, sleep and end wait for it. Shorter stretches
 * are the counted model's (invocationCpuMs, parse cost per byte), so small runs stay reproducible; charged runs
 * depend on this machine's speed (about one Lambda vCPU; docs/simulator.md, "Function time and memory").
 */
import type { VirtualClock } from '../clock';
import { epochMs, type EpochMs } from '../../core/time';
import { cpuShare } from './cost';
import type { Meter, Running } from './metering';

/**
 * The process's CPU time (ms), not wall time: a simulator descheduled on a busy machine (a test run beside it) charges
 * nothing for the time it waited. It includes V8's helper threads (concurrent GC), so a stretch during heavy GC may be
 * overcharged, never under.
 */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Stretches shorter than this (CPU ms) are left to the counted model. */
const COMPUTE_THRESHOLD_MS = 1_000;

interface Stretch {
  running: Running;
  turn: number;
  startCpu: number;
  committed: boolean;
  /** Its end is taken when the synchronous work it is part of returns to the event loop. */
  ending: boolean;
}

export class ComputeCharge {
  private stretch: Stretch | undefined;
  /** Per invocation: virtual time until which its thread is busy with charged computation. */
  private readonly until = new WeakMap<Running, number>();
  /** Charged virtual milliseconds per function key (reported beside the durations). */
  readonly chargedMs = new Map<string, number>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly meter: Meter,
    private readonly thresholdMs = COMPUTE_THRESHOLD_MS,
  ) {}

  /** The invocation's time: the virtual clock, plus what it has computed and not yet waited out. */
  now(): EpochMs {
    const r = this.meter.running();
    const base = this.clock.now();
    if (!r) return base;
    // One CPU reading per clock reading: functions read the clock often.
    const cpu = cpuNow();
    this.observe(r, cpu);
    return epochMs(Math.floor(Math.max(base, this.until.get(r) ?? 0) + this.live(r, cpu)));
  }

  /** Sleeps after the invocation's computation: the thread is busy until then. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const r = this.meter.running();
    if (r) this.commit(r);
    const owed = r ? Math.max(0, (this.until.get(r) ?? 0) - this.clock.now()) : 0;
    await this.clock.sleep(Math.ceil(owed) + ms, signal);
  }

  /** What the invocation still owes when it ends (its handler returned): the end waits for it. */
  owedMs(r: Running): number {
    this.commit(r);
    return Math.max(0, (this.until.get(r) ?? 0) - this.clock.now());
  }

  /** Ends the invocation's open stretch, if any, charging it (before its next answer is timed). */
  commit(r: Running, endCpu = cpuNow()): void {
    const s = this.stretch;
    if (s && s.running === r) this.charge(s, endCpu);
  }

  private charge(s: Stretch, endCpu: number): void {
    if (s.committed) return;
    s.committed = true;
    const elapsed = endCpu - s.startCpu;
    if (elapsed < this.thresholdMs) return;
    const r = s.running;
    const charge = elapsed / cpuShare(r.memoryMb);
    const until = Math.max(this.clock.now(), r.cpuFreeMs, this.until.get(r) ?? 0) + charge;
    this.until.set(r, until);
    r.cpuFreeMs = Math.max(r.cpuFreeMs, until);
    this.chargedMs.set(r.key, (this.chargedMs.get(r.key) ?? 0) + charge);
  }

  private observe(r: Running, cpu: number): void {
    const s = this.stretch;
    if (s && s.running === r && s.turn === this.clock.turn && !s.committed) {
      // A stretch long enough to charge ends with the synchronous work it is part of.
      if (!s.ending && cpu - s.startCpu >= this.thresholdMs) {
        s.ending = true;
        setImmediate(() => this.charge(s, cpuNow()));
      }
      return;
    }
    if (s) this.charge(s, cpu);
    const next: Stretch = { running: r, turn: this.clock.turn, startCpu: cpu, committed: false, ending: false };
    this.stretch = next;
    // It ends with the synchronous work it started in: what runs after that (the simulated API server answering
    // others, other functions, the simulator's controllers) is not this function's computation.
    queueMicrotask(() => this.charge(next, cpuNow()));
  }

  private live(r: Running, cpu: number): number {
    const s = this.stretch;
    if (!s || s.running !== r || s.committed) return 0;
    const elapsed = cpu - s.startCpu;
    return elapsed < this.thresholdMs ? 0 : elapsed / cpuShare(r.memoryMb);
  }
}
