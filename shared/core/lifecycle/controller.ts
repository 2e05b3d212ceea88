/**
 * The controller: one long invocation that holds Kubernetes watches (pods, nodes, NodeClaims, NodePools, EC2NodeClasses) and
 * turns changes into work within seconds — Karpenter's batching (1 s idle / 10 s max) before a provisioner
 * round, a disruption pass after a relevant change (debounced) or when consolidateAfter may have elapsed, and a
 * hand-over to the next scheduled invocation through the `controller` lease so there is never a gap and never
 * two. Watches start from the current state (every object as ADDED), so events are treated as level, not edge:
 * a dropped stream, a 410 Gone or a restart re-reads the state and misses nothing — except bound pods, whose
 * stream is edges only (never listed: see ports/cluster-watch.ts and controller-bound.ts).
 */
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import type {
  ClusterClient,
  ClusterWatch,
  FunctionInvoker,
  InvokedFunction,
  WarmedFunction,
  MetricsRecorder,
  StateStore,
  Clock,
  WatchedKind,
  WorkflowStarter,
} from '../ports';
import { reconcileDeletions } from './deletions';
import type { LifecycleLogger } from './deps';
import { isProvisionable } from './provisionable';
import { acquire, CONTROLLER_LEASE, HeldLease } from './controller-lease';
import { ControllerState } from './controller-state';
import { ControllerWatches } from './controller-watches';
import { PodStartups } from './pod-startup';
import { epochMs, type EpochMs } from '../time';
import { KEPT_WARM_FROM } from '../ports/cluster-client';

export { CONTROLLER_LEASE } from './controller-lease';

export interface ControllerDeps {
  /** For `kubectl delete` of a node or claim: delete the claim of a deleted Node, start `terminate`. */
  cluster: Pick<ClusterClient, 'deleteNodeClaim' | 'getNodeClaim'>;
  workflows: WorkflowStarter;
  watch: ClusterWatch;
  invoker: FunctionInvoker;
  store: StateStore;
  clock: Clock;
  log: LifecycleLogger;
  /** karpenter_pods_startup_duration_seconds, from the pods watches (absent: not recorded). */
  metrics?: MetricsRecorder;
}

export interface ControllerOptions {
  holder: string;
  /** How long this invocation holds the watches (ms); it hands over at the end. Default 14 min. */
  budgetMs?: number;
  idleMs?: number;
  maxBatchMs?: number;
  /** A disruption pass waits this long after the last relevant change (ms). Default 2 s. */
  disruptionQuietMs?: number;
  /** And never starts sooner than this after the previous one (ms). Default 10 s, Karpenter's loop. */
  disruptionMinIntervalMs?: number;
  /** A pass at least this often, for what changes with time alone (expiry, budgets' schedules). Default 5 min. */
  disruptionEveryMs?: number;
  /**
   * A provisioner round at least this often (default 4 min, inside the ~5 minutes an idle Lambda container is kept), so
   * its container is there when a burst comes; the functions of WARMED are pinged as often.
   */
  provisionerKeepWarmMs?: number;
  /**
   * A round at least this often while the provisioner's snapshot holds KEPT_WARM_FROM pods or more, and first after the
   * start (the size is not known yet): default 60 s, inside the 75 s the API server's watch cache keeps, so the next
   * round catches its warm copy up instead of listing the whole cluster again while a burst waits.
   */
  provisionerWarmSnapshotMs?: number;
}

export interface ControllerResult {
  skipped: boolean;
  provisionerRuns: number;
  disruptionRuns: number;
  events: number;
  rewatches: number;
}

/** How long a call may run past the planned hand-over (the controller's handler keeps 45 s before its timeout). */
const CALL_OVERRUN_MS = 30_000;
const KEEP_WARM_MS = 4 * 60_000;
const WARM_SNAPSHOT_MS = 60_000;
/** The keep-warm interval of a cluster whose snapshot the provisioner keeps warm (never longer than the usual one). */
const warmSnapshotMs = (o: ControllerOptions): number => Math.min(o.provisionerWarmSnapshotMs ?? WARM_SNAPSHOT_MS, o.provisionerKeepWarmMs ?? KEEP_WARM_MS);

/** How long a NodeClaim waits for its creator's `launch` before the controller starts it. */
const STANDALONE_LAUNCH_AFTER_MS = 10_000;

/**
 * What the controller pings every keep-warm interval (the provisioner has its keep-warm rounds): a `launch`
 * execution's first two Tasks, and what a spot warning runs in turn (the queue's function, then a `disrupt`
 * execution's first three Tasks).
 */
const WARMED: WarmedFunction[] = ['validateLaunchInput', 'launchNodeClaim', 'interruption', 'validateDisruptInput', 'taintCandidates', 'launchReplacement'];

const KINDS: WatchedKind[] = ['pods', 'boundpods', 'nodeclaims', 'nodes', 'nodepools', 'nodeclasses'];

export async function runController(deps: ControllerDeps, options: ControllerOptions): Promise<ControllerResult> {
  const start = deps.clock.now();
  const end = epochMs(start + (options.budgetMs ?? 14 * 60_000));
  // A heartbeat that finds a healthy holder ends at once and says nothing (one a minute would drown the logs).
  const acquiredAt = await acquire(deps, options.holder, end);
  if (acquiredAt === undefined) return { skipped: true, provisionerRuns: 0, disruptionRuns: 0, events: 0, rewatches: 0 };
  deps.log.info('controller started', { holder: options.holder, until: new Date(end).toISOString() });
  const loop = new ControllerLoop(deps, options, start, end, acquiredAt);
  try {
    await loop.run();
  } finally {
    await loop.stop();
  }
  const result = loop.result();
  deps.log.info('controller handing over', {
    holder: options.holder,
    events: result.events,
    provisionerRuns: result.provisionerRuns,
    disruptionRuns: result.disruptionRuns,
  });
  return result;
}

/** A provisioner round at least this often while CapacityBuffers exist. */
const BUFFER_ROUND_MS = 30_000;

/** One invocation while it holds the lease: its watches, the objects it last saw, and the calls in flight. */
class ControllerLoop {
  private readonly state: ControllerState;
  private readonly watches: ControllerWatches;
  /** Aborted to end the loop's sleep early (an event, a close, a call finishing). */
  private wake = new AbortController();
  // Nodes and NodeClaims as last seen (hundreds of objects at most): `kubectl delete` is decided from them.
  private readonly nodes = new Map<string, Node>();
  private readonly claims = new Map<string, NodeClaim>();
  private readonly startups: PodStartups;
  private deletionsDue = false;
  /** NodeClaims with no launch yet (e.g. applied by a user), since when: their `launch` starts if none did. */
  private readonly unlaunched = new Map<string, EpochMs>();
  private deletionsRetryAt = Infinity;
  private provisioning: Promise<void> | undefined;
  private disrupting: Promise<unknown> | undefined;
  private collecting: Promise<unknown> | undefined;
  private provisionerRuns = 0;
  private disruptionRuns = 0;
  private readonly lease: HeldLease;
  /** The controller's actions, each refused unless the lease is ours at that moment. */
  private readonly act: Pick<ControllerDeps, 'cluster' | 'workflows' | 'invoker'>;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly options: ControllerOptions,
    start: EpochMs,
    private readonly end: EpochMs,
    acquiredAt: EpochMs,
  ) {
    this.state = new ControllerState(
      {
        idleMs: options.idleMs ?? 1_000,
        maxBatchMs: options.maxBatchMs ?? 10_000,
        quietMs: options.disruptionQuietMs ?? 2_000,
        minIntervalMs: options.disruptionMinIntervalMs ?? 10_000,
        everyMs: options.disruptionEveryMs ?? 5 * 60_000,
        keepWarmMs: warmSnapshotMs(options),
      },
      start,
    );
    this.watches = new ControllerWatches(deps, this.state, () => this.wake.abort());
    this.startups = new PodStartups(deps.metrics);
    this.lease = new HeldLease(deps, options.holder, end, acquiredAt, () => this.wake.abort());
    const fence = this.lease.fence.bind(this.lease);
    this.act = {
      cluster: {
        getNodeClaim: (name) => deps.cluster.getNodeClaim(name),
        deleteNodeClaim: fence('delete nodeclaim', (name) => deps.cluster.deleteNodeClaim(name)),
      },
      workflows: { start: fence('start workflow', (machine, name, input) => deps.workflows.start(machine, name, input)) },
      invoker: { invoke: fence('invoke', (fn, payload) => deps.invoker.invoke(fn, payload)), warm: fence('warm', (fn) => deps.invoker.warm(fn)) },
    };
  }

  result(): ControllerResult {
    return {
      skipped: false,
      provisionerRuns: this.provisionerRuns,
      disruptionRuns: this.disruptionRuns,
      events: this.watches.events,
      rewatches: this.watches.rewatches,
    };
  }

  async run(): Promise<void> {
    for (const kind of KINDS) this.watches.open(kind);
    // A new controller does not know whether the provisioner is warm: it pings it, and WARMED (pingDue).
    void this.warm('provisioner');
    for (;;) {
      let now = this.deps.clock.now();
      if (now >= this.end || this.lease.lost) break;
      // Events first: they may close a batch or make a pass due.
      this.applyEvents(now);
      this.watches.rewatchClosed(now);
      this.watches.openDue(now);
      this.lease.tick(now);
      // Acting takes time (a deletion, a StartExecution): each action is fenced on the lease at its own moment.
      await this.reconcileDeletions(now);
      await this.launchStandalone(now);
      now = this.deps.clock.now();
      if (this.lease.valid(now)) this.startCalls(now);
      if (this.lease.valid(now) && now >= this.nextPing) this.ping(now);
      await this.sleep();
    }
  }

  private applyEvents(now: EpochMs): void {
    for (const e of this.watches.takeEvents(now)) {
      this.state.apply(e, now, isProvisionable);
      const o = e.object;
      if (o.kind === 'nodes') {
        if (e.type === 'DELETED') this.nodes.delete(o.name);
        else this.nodes.set(o.name, o.node);
        if (e.type !== 'DELETED' && o.node.deletionTimestamp !== undefined) this.deletionsDue = true;
      } else if (o.kind === 'nodeclaims') {
        if (e.type === 'DELETED') this.claims.delete(o.name);
        else this.claims.set(o.name, o.nodeClaim);
        const c = o.nodeClaim;
        const launched = c.status.providerID || c.status.nodeName || c.status.conditions.some((x) => x.type === 'Launched');
        const waiting = e.type !== 'DELETED' && c.deletionTimestamp === undefined && !launched;
        if (!waiting) this.unlaunched.delete(o.name);
        else if (!this.unlaunched.has(o.name)) this.unlaunched.set(o.name, now);
        if (e.type !== 'DELETED' && o.nodeClaim.deletionTimestamp !== undefined) this.deletionsDue = true;
      } else if (o.kind === 'pods' || o.kind === 'boundpods') {
        this.startups.apply(o.kind, e.type, o.pod, now);
      }
    }
  }

  /** `kubectl delete` of a node or claim: after a deletion was seen, and again 5 s after a failed one. */
  private async reconcileDeletions(now: EpochMs): Promise<void> {
    if ((!this.deletionsDue && now < this.deletionsRetryAt) || !this.lease.valid(now)) return;
    this.deletionsDue = false;
    const outcomes = await reconcileDeletions({ ...this.deps, ...this.act }, { nodes: [...this.nodes.values()], nodeClaims: [...this.claims.values()] });
    this.deletionsRetryAt = outcomes.some((o) => o.result === 'failed') ? now + 5_000 : Infinity;
  }

  /**
   * A NodeClaim nobody launched — applied by a user (Karpenter launches standalone NodeClaims), or left by a
   * provisioner that died between creating it and starting its launch — gets its `launch` execution. The wait lets
   * the provisioner start its own first; the execution is named after the claim, so it never runs twice.
   */
  private async launchStandalone(now: EpochMs): Promise<void> {
    for (const [name, since] of this.unlaunched) {
      if (now < since + STANDALONE_LAUNCH_AFTER_MS || !this.lease.valid(this.deps.clock.now())) continue;
      this.unlaunched.delete(name);
      try {
        const { alreadyStarted } = await this.act.workflows.start('launch', name, { nodeClaimName: name });
        if (!alreadyStarted) this.deps.log.info('started the launch of a nodeclaim no provisioner launched', { nodeclaim: name });
      } catch (e) {
        this.deps.log.warn('could not start the launch of a nodeclaim', { nodeclaim: name, error: e instanceof Error ? e.message : String(e) });
      }
    }
  }

  /** A provisioner round for a ready batch, a disruption pass when one is due: one of each in flight at most. */
  private startCalls(now: EpochMs): void {
    if (!this.provisioning && this.state.batchReady(now)) {
      const pods = this.state.takeBatch(now);
      this.provisionerRuns++;
      this.provisioning = invoke(this.deps, this.act, 'provisioner', {
        reconcile: true,
        batched: true,
        source: 'nodewright.controller',
        pods: pods.length,
        deadlineMs: this.callDeadline(),
      })
        .then((out) => {
          this.keepSnapshotWarm(out);
          // A round that hit its deadline left claims to the next one: plan their pods again now, not at the retry back-off.
          if (deferredClaims(out) > 0) this.state.replan(this.deps.clock.now());
        })
        .finally(() => {
          this.provisioning = undefined;
          this.wake.abort();
        });
    }
    if (!this.disrupting && this.state.disruptionDue(now)) {
      this.state.disruptionStarted(now);
      this.disruptionRuns++;
      this.disrupting = invoke(this.deps, this.act, 'disruption', {
        reconcile: true,
        source: 'nodewright.controller',
        deadlineMs: this.callDeadline(),
      }).finally(() => {
        this.disrupting = undefined;
        this.wake.abort();
      });
    }
    // A NodePool or EC2NodeClass created, changed or deleted: garbage collection writes their statuses and keeps the
    // class's finalizer, within seconds rather than at its 2-minute schedule.
    if (!this.collecting && this.state.statusDue(now)) {
      this.state.statusStarted(now);
      this.collecting = invoke(this.deps, this.act, 'garbageCollection', { source: 'nodewright.controller', reason: 'statuses' }).finally(() => {
        this.collecting = undefined;
        this.wake.abort();
      });
    }
  }

  /**
   * When a call must end: the controller waits for its calls before it hands over, so a call started just before
   * the hand-over gets what is left of the controller's safety time (the handler stops 45 s before its timeout).
   */
  private callDeadline(): EpochMs {
    return epochMs(this.end + CALL_OVERRUN_MS);
  }

  /** Rounds every 60 s while the provisioner reads a cluster whose snapshot it keeps warm, else every 4 min. */
  private keepSnapshotWarm(out: unknown): void {
    const pods = (out as { clusterPods?: unknown } | undefined)?.clusterPods;
    if (typeof pods !== 'number') return;
    const every = pods >= KEPT_WARM_FROM ? warmSnapshotMs(this.options) : (this.options.provisionerKeepWarmMs ?? KEEP_WARM_MS);
    // CapacityBuffers: pods that start in a chunk's room use it up; a round every 30 s (Karpenter's buffer controller
    // requeue) launches its next chunk.
    const buffers = (out as { bufferPods?: unknown }).bufferPods;
    this.state.keepWarmEvery(typeof buffers === 'number' && buffers > 0 ? Math.min(every, BUFFER_ROUND_MS) : every);
  }

  /** When the functions of WARMED are pinged next: at the start, then every keep-warm interval. */
  private nextPing = -Infinity;

  private ping(now: EpochMs): void {
    this.nextPing = now + (this.options.provisionerKeepWarmMs ?? KEEP_WARM_MS);
    for (const fn of WARMED) void this.warm(fn);
  }

  private async warm(fn: WarmedFunction): Promise<void> {
    try {
      await this.act.invoker.warm(fn);
    } catch (e) {
      this.deps.log.warn(`could not keep ${fn} warm`, { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }

  /** Sleeps until the next thing is due, unless events or closes are waiting. */
  private async sleep(): Promise<void> {
    if (!this.watches.idle) return;
    // Work due while the lease may have expired waits for a renewal (whose end wakes the loop).
    const acting = this.lease.valid(this.deps.clock.now());
    const next = Math.min(
      this.end,
      this.lease.nextAt,
      ...(acting ? [this.nextPing] : []),
      ...(acting ? [this.deletionsRetryAt, ...[...this.unlaunched.values()].map((since) => since + STANDALONE_LAUNCH_AFTER_MS)] : []),
      this.state.nextDue({
        provisioning: this.provisioning !== undefined || !acting,
        disrupting: this.disrupting !== undefined || !acting,
        collecting: this.collecting !== undefined || !acting,
      }),
    );
    this.wake = new AbortController();
    await this.deps.clock.sleep(Math.max(0, next - this.deps.clock.now()), this.wake.signal);
  }

  async stop(): Promise<void> {
    this.watches.stopAll();
    // Wait for calls in flight on the clock (not on their promises): what they wait for may be the clock itself.
    while (this.provisioning !== undefined || this.disrupting !== undefined || this.collecting !== undefined) {
      this.wake = new AbortController();
      await this.deps.clock.sleep(5_000, this.wake.signal);
    }
    await this.deps.store.releaseLease(CONTROLLER_LEASE, this.options.holder).catch(() => undefined);
  }
}

async function invoke(deps: ControllerDeps, act: Pick<ControllerDeps, 'invoker'>, fn: InvokedFunction, payload: unknown): Promise<unknown> {
  try {
    return await act.invoker.invoke(fn, payload);
  } catch (e) {
    deps.log.error(`${fn} invocation failed`, { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    return undefined;
  }
}

/** `deferred` of a provisioner result (ProvisionerResult), 0 when absent. */
const deferredClaims = (out: unknown): number => {
  const n = typeof out === 'object' && out !== null ? (out as { deferred?: unknown }).deferred : undefined;
  return typeof n === 'number' ? n : 0;
};
