/**
 * The controller: one long invocation that holds Kubernetes watches (pods, nodes, NodeClaims, NodePools) and
 * turns changes into work within seconds — Karpenter's batching (1 s idle / 10 s max) before a provisioner
 * round, a disruption pass after a relevant change (debounced) or when consolidateAfter may have elapsed, and a
 * hand-over to the next scheduled invocation through the `controller` lease so there is never a gap and never
 * two. Watches start from the current state (every object as ADDED), so events are treated as level, not edge:
 * a dropped stream, a 410 Gone or a restart re-reads the state and misses nothing.
 */
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import type { ClusterClient, ClusterWatch, FunctionInvoker, MetricsRecorder, StateStore, Clock, WatchClosed, WatchedKind, WatchEvent, WatchHandle, WorkflowStarter } from '../ports';
import { reconcileDeletions } from './deletions';
import type { LifecycleLogger } from './deps';
import { isProvisionable } from './provisionable';
import { ControllerState } from './controller-state';
import { PodStartups } from './pod-startup';

export interface ControllerDeps {
  /** For `kubectl delete` of a node or claim: delete the claim of a deleted Node, start `terminate`. */
  cluster: Pick<ClusterClient, 'deleteNodeClaim' | 'getNodeClaim'>;
  workflows: WorkflowStarter;
  watch: ClusterWatch;
  invoker: FunctionInvoker;
  store: StateStore;
  clock: Clock;
  log: LifecycleLogger;
  /** karpenter_pods_startup_duration_seconds, from the pods watch (absent: not recorded). */
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
}

export interface ControllerResult {
  skipped: boolean;
  provisionerRuns: number;
  disruptionRuns: number;
  events: number;
  rewatches: number;
}

export const CONTROLLER_LEASE = 'controller';
const LEASE_TTL_SECONDS = 30;
const RENEW_EVERY_MS = 10_000;
/** A heartbeat that finds the lease held waits for the holder's planned end when it is this close (ticks are 60 s apart). */
const HANDOVER_WINDOW_MS = 65_000;
const KINDS: WatchedKind[] = ['pods', 'nodeclaims', 'nodes', 'nodepools'];

/** Waits for the lease: at once if free, or until the holder hands over if that is within the window. */
async function acquire(deps: ControllerDeps, holder: string, untilMs: number): Promise<boolean> {
  for (;;) {
    let current: Awaited<ReturnType<StateStore['readLease']>>;
    try {
      if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, untilMs)) return true;
      current = await deps.store.readLease(CONTROLLER_LEASE);
    } catch (e) {
      // The store is throttled or down: the next heartbeat (a minute away) tries again.
      deps.log.warn('controller lease unavailable; the next heartbeat retries', { holder, error: e instanceof Error ? e.message : String(e) });
      return false;
    }
    const now = deps.clock.now();
    const handsOverAt = current ? current.untilMs ?? current.expiresAt : now;
    if (handsOverAt - now > HANDOVER_WINDOW_MS || now + 2 * RENEW_EVERY_MS >= untilMs) return false;
    // Sleep until the planned hand-over, then poll each second: a minute of 1 s polls would be 60 writes.
    await deps.clock.sleep(Math.max(1_000, handsOverAt - now));
  }
}

export async function runController(deps: ControllerDeps, options: ControllerOptions): Promise<ControllerResult> {
  const start = deps.clock.now();
  const end = start + (options.budgetMs ?? 14 * 60_000);
  const result: ControllerResult = { skipped: false, provisionerRuns: 0, disruptionRuns: 0, events: 0, rewatches: 0 };
  // A heartbeat that finds a healthy holder ends at once and says nothing (one a minute would drown the logs).
  if (!(await acquire(deps, options.holder, end))) return { ...result, skipped: true };
  deps.log.info('controller started', { holder: options.holder, until: new Date(end).toISOString() });
  const state = new ControllerState({
    idleMs: options.idleMs ?? 1_000, maxBatchMs: options.maxBatchMs ?? 10_000,
    quietMs: options.disruptionQuietMs ?? 2_000, minIntervalMs: options.disruptionMinIntervalMs ?? 10_000, everyMs: options.disruptionEveryMs ?? 5 * 60_000,
  }, start);
  let wake = new AbortController();
  const queue: WatchEvent[] = [];
  const closed: { kind: WatchedKind; why: WatchClosed }[] = [];
  const handles = new Map<WatchedKind, WatchHandle>();
  const versions = new Map<WatchedKind, string>();
  const failedOpens = new Map<WatchedKind, number>();
  const open = async (kind: WatchedKind): Promise<void> => {
    const handle = await deps.watch.watch(kind, versions.get(kind), (e) => {
      queue.push(e);
      failedOpens.delete(kind);
      if (e.type !== 'BOOKMARK') result.events++;
      wake.abort();
    }, (why) => {
      closed.push({ kind, why });
      wake.abort();
    });
    handles.set(kind, handle);
  };
  const openOrRetry = async (kind: WatchedKind) => {
    try {
      await open(kind);
    } catch (e) {
      const n = (failedOpens.get(kind) ?? 0) + 1;
      failedOpens.set(kind, n);
      deps.log.warn('watch failed to start; retrying', { kind, attempt: n, error: e instanceof Error ? e.message : String(e) });
      state.retryWatchAt(kind, deps.clock.now() + Math.min(5_000, 500 * 2 ** n));
    }
  };
  // Nodes and NodeClaims as last seen (hundreds of objects at most): `kubectl delete` is decided from them.
  const nodes = new Map<string, Node>();
  const startups = new PodStartups(deps.metrics);
  const claims = new Map<string, NodeClaim>();
  let deletionsDue = false;
  let deletionsRetryAt = Infinity;
  let provisioning: Promise<void> | undefined;
  let disrupting: Promise<void> | undefined;
  let lastRenew = start;
  let leaseValidUntil = start + LEASE_TTL_SECONDS * 1000;
  try {
    for (const kind of KINDS) await openOrRetry(kind);
    for (;;) {
      const now = deps.clock.now();
      if (now >= end) break;
      // Events first: they may close a batch or make a pass due.
      for (const e of queue.splice(0)) {
        if (e.resourceVersion) versions.set(e.type === 'BOOKMARK' ? 'pods' : e.object.kind, e.resourceVersion);
        if (e.type === 'BOOKMARK') continue;
        state.apply(e, now, isProvisionable);
        const o = e.object;
        if (o.kind === 'nodes') {
          if (e.type === 'DELETED') nodes.delete(o.name); else nodes.set(o.name, o.node);
          if (e.type !== 'DELETED' && o.node.deletionTimestamp !== undefined) deletionsDue = true;
        } else if (o.kind === 'nodeclaims') {
          if (e.type === 'DELETED') claims.delete(o.name); else claims.set(o.name, o.nodeClaim);
          if (e.type !== 'DELETED' && o.nodeClaim.deletionTimestamp !== undefined) deletionsDue = true;
        } else if (o.kind === 'pods') {
          startups.apply(e.type, o.pod, now);
        }
      }
      if (deletionsDue || now >= deletionsRetryAt) {
        deletionsDue = false;
        const outcomes = await reconcileDeletions(deps, { nodes: [...nodes.values()], nodeClaims: [...claims.values()] });
        deletionsRetryAt = outcomes.some((o) => o.result === 'failed') ? now + 5_000 : Infinity;
      }
      for (const { kind, why } of closed.splice(0)) {
        result.rewatches++;
        handles.get(kind)?.stop();
        handles.delete(kind);
        if (why.gone) versions.delete(kind); // too old: start again from the current state
        // Back off on streams that keep failing (an API server in trouble), at once after a clean end or a 410.
        const n = why.error && !why.gone ? (failedOpens.get(kind) ?? 0) + 1 : 0;
        failedOpens.set(kind, n);
        if (why.error) deps.log.warn('watch closed; watching again', { kind, gone: why.gone, error: why.error, attempt: n });
        state.retryWatchAt(kind, now + (n === 0 ? 0 : Math.min(5_000, 250 * 2 ** n)));
      }
      for (const kind of state.watchesDue(now)) if (!handles.has(kind)) await openOrRetry(kind);
      if (!provisioning && state.batchReady(now)) {
        const pods = state.takeBatch(now);
        result.provisionerRuns++;
        provisioning = invoke(deps, 'provisioner', { reconcile: true, batched: true, source: 'nodewright.controller', pods: pods.length })
          .finally(() => { provisioning = undefined; wake.abort(); });
      }
      if (!disrupting && state.disruptionDue(now)) {
        state.disruptionStarted(now);
        result.disruptionRuns++;
        disrupting = invoke(deps, 'disruption', { reconcile: true, source: 'nodewright.controller' })
          .finally(() => { disrupting = undefined; wake.abort(); });
      }
      if (now - lastRenew >= RENEW_EVERY_MS) {
        lastRenew = now;
        const renewed = await renew(deps, options.holder, end);
        if (renewed === 'lost') break;
        if (renewed === 'held') leaseValidUntil = now + LEASE_TTL_SECONDS * 1000;
        else if (now >= leaseValidUntil - RENEW_EVERY_MS) {
          deps.log.warn('controller lease may expire before it can be renewed; stopping', { holder: options.holder });
          break;
        }
      }
      const next = Math.min(end, lastRenew + RENEW_EVERY_MS, deletionsRetryAt, state.nextDue({ provisioning: provisioning !== undefined, disrupting: disrupting !== undefined }));
      if (queue.length === 0 && closed.length === 0) {
        wake = new AbortController();
        await deps.clock.sleep(Math.max(0, next - deps.clock.now()), wake.signal);
      }
    }
  } finally {
    for (const h of handles.values()) h.stop();
    // Wait for calls in flight on the clock (not on their promises): what they wait for may be the clock itself.
    while (provisioning !== undefined || disrupting !== undefined) {
      wake = new AbortController();
      await deps.clock.sleep(5_000, wake.signal);
    }
    await deps.store.releaseLease(CONTROLLER_LEASE, options.holder).catch(() => undefined);
  }
  deps.log.info('controller handing over', { holder: options.holder, events: result.events, provisionerRuns: result.provisionerRuns, disruptionRuns: result.disruptionRuns });
  return result;
}

async function invoke(deps: ControllerDeps, fn: 'provisioner' | 'disruption', payload: unknown): Promise<void> {
  try {
    await deps.invoker.invoke(fn, payload);
  } catch (e) {
    deps.log.error(`${fn} invocation failed`, { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
}

/** Renews the lease: `held`, `lost` (another holder took it: stop), or `unknown` (a store error: retry while it lasts). */
async function renew(deps: ControllerDeps, holder: string, end: number): Promise<'held' | 'lost' | 'unknown'> {
  try {
    if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, end)) return 'held';
    deps.log.warn('controller lease lost; stopping', { holder });
    return 'lost';
  } catch (e) {
    deps.log.warn('controller lease renewal failed; retrying', { holder, error: e instanceof Error ? e.message : String(e) });
    return 'unknown';
  }
}
