/**
 * What the controller knows between events, and when work is due — pure, driven by the controller loop:
 * - the provisionable pods not yet handed to a provisioner round (Karpenter's batcher: a round starts 1 s after
 *   the last new pod, or 10 s after the first);
 * - static NodePools (spec.replicas): a change to one, or a deletion among its NodeClaims, calls a provisioner
 *   round at once (it keeps them at their replicas);
 * - whether something a disruption pass depends on changed (a pod bound, deleted or finished; a node's labels,
 *   taints or readiness; a NodeClaim's conditions or deletion; a NodePool), and the times a pass is due.
 * Only small fingerprints are kept per object, and none per bound pod (their stream is edges: controller-bound.ts).
 */
import type { WatchedKind } from '../ports';
import type { Pod } from '../model/kube';
import type { NodePool } from '../model/karpenter';
import { nextBudgetTransition } from '../disruption/budgets';
import { nextScheduleTransition } from '../provisioning/pool-schedules';

import { REBOOT_GRACE_SECONDS } from '../disruption/repair';
import { Annotation } from '../model/labels';
import { repairPolicyFor } from '../model/repair-policies';
import { addMs, addSeconds, type EpochMs } from '../time';
import { BoundPodChanges } from './controller-bound';
import { fingerprint, type ObjectEvent } from './controller-fingerprint';

/** The next edge of a pool's budget windows or nodewright.io/schedules windows: a pass (and, for limits, a round) is due then. */
const nextTransition = (pool: NodePool, now: EpochMs): EpochMs | undefined => {
  const times = [nextBudgetTransition(pool, now), nextScheduleTransition(pool, now)].filter((t): t is EpochMs => t !== undefined);
  return times.length ? (Math.min(...times) as EpochMs) : undefined;
};

export interface ControllerTimings {
  idleMs: number;
  maxBatchMs: number;
  quietMs: number;
  minIntervalMs: number;
  everyMs: number;
  /** A round at least this often, pods pending or not, so the provisioner's container and its warm snapshot stay (none: never). */
  keepWarmMs?: number;
}

/** Retries of still-pending pods back off from 10 s to 2 min (the ICE cache lasts 3 min). */
const RETRY_FIRST_MS = 10_000;
const RETRY_MAX_MS = 120_000;
const STATUS_SETTLE_MS = 1_000;
const STATUS_MIN_INTERVAL_MS = 5_000;

export class ControllerState {
  /** Provisionable pods (uid) → handed to a round already. */
  private readonly provisionable = new Map<string, boolean>();
  private batchFirst?: EpochMs;
  private batchLast?: EpochMs;
  /** Pods handed to a round but still pending (no capacity yet, e.g. every offering unavailable) are retried then. */
  private retryAt?: EpochMs;
  private retryDelayMs = RETRY_FIRST_MS;
  /** When the last provisioner round started (the controller's start before the first). */
  private lastRound: EpochMs;
  /** A round at least this often, pods pending or not (`keepWarmMs` until the controller sets another). */
  private keepWarmMs: number | undefined;
  /** Per object but bound pods: a fingerprint of what disruption reads. */
  private readonly fingerprints = new Map<string, string>();
  private readonly boundPods = new BoundPodChanges();
  private dirtySince?: EpochMs;
  /** When the last pass started (none yet: -Infinity). */
  private lastPass = -Infinity;
  private nextPeriodic: EpochMs;
  /** consolidateAfter per pool (ms): a pass is due that long after a change. */
  private readonly consolidateAfter = new Map<string, number>();
  private readonly timers: EpochMs[] = [];
  /** Moments a pass is due because time alone changes a decision: a claim's expiry, a budget window opening or closing. */
  private readonly expiries = new Map<string, EpochMs>();
  /** The earliest of `expiries`, kept so the loop does not scan every claim at each wake (undefined: recompute). */
  private earliestExpiryCache?: number;
  private readonly budgetWindows = new Map<string, { pool: NodePool; at: EpochMs }>();
  /** A NodePool's fingerprint (spec hash, readiness, deletion): a new or changed pool may take pods already pending. */
  private readonly poolPrints = new Map<string, string>();
  /**
   * Statuses (EC2NodeClass resolution and Ready, its finalizer, NodePool Ready) are written by garbage collection;
   * a class or pool created, changed or deleted makes a run due now rather than at its 2-minute schedule.
   */
  private statusDueSince?: EpochMs;
  private lastStatusRun = -Infinity;
  private readonly classPrints = new Map<string, string>();
  private readonly deletingClasses = new Set<string>();
  private readonly watchRetries = new Map<WatchedKind, EpochMs>();
  /** Static NodePools by name, and whether one needs a provisioner round (replicas or its claims changed). */
  private readonly staticPools = new Set<string>();
  private staticDue = false;
  private readonly staticPrints = new Map<string, string>();
  private readonly staticDeleting = new Set<string>();

  constructor(
    private readonly t: ControllerTimings,
    startMs: EpochMs,
  ) {
    this.nextPeriodic = addMs(startMs, t.everyMs);
    this.lastRound = startMs;
    this.keepWarmMs = t.keepWarmMs;
  }

  apply(e: ObjectEvent, now: EpochMs, isProvisionable: (p: Pod) => boolean): void {
    const o = e.object;
    if (o.kind === 'boundpods') {
      if (this.boundPods.changed(e.type, o.pod)) this.changed(now);
      return;
    }
    const key = `${o.kind}/${o.kind === 'pods' ? o.pod.uid : o.name}`;
    if (o.kind === 'pods') {
      const wanted = e.type !== 'DELETED' && isProvisionable(o.pod);
      if (wanted && !this.provisionable.has(o.pod.uid)) {
        this.provisionable.set(o.pod.uid, false);
        this.batchFirst ??= now;
        this.batchLast = now;
        this.retryDelayMs = RETRY_FIRST_MS;
      } else if (!wanted) {
        this.provisionable.delete(o.pod.uid);
        if (this.provisionable.size === 0) {
          this.retryAt = undefined;
          this.retryDelayMs = RETRY_FIRST_MS;
        }
      }
    }
    if (o.kind === 'nodepools') {
      if (e.type !== 'DELETED' && o.nodePool?.replicas !== undefined) {
        const key = `${o.nodePool.replicas}|${o.nodePool.ready !== false}|${o.nodePool.deleting === true}`;
        if (this.staticPrints.get(o.name) !== key) this.staticDue = true;
        this.staticPrints.set(o.name, key);
        this.staticPools.add(o.name);
      } else {
        this.staticPools.delete(o.name);
        this.staticPrints.delete(o.name);
      }
    }
    if (o.kind === 'nodeclaims' && this.staticPools.has(o.nodeClaim.nodePool)) {
      // A static pool's claim going away (deleted, expired, drift-replaced) may leave it short of its replicas.
      if (e.type === 'DELETED') {
        this.staticDue = true;
        this.staticDeleting.delete(o.name);
      } else if (o.nodeClaim.deletionTimestamp !== undefined && !this.staticDeleting.has(o.name)) {
        this.staticDeleting.add(o.name);
        this.staticDue = true;
      }
    }
    if (o.kind === 'nodepools' && o.nodePool) {
      const after = o.nodePool.disruption.consolidateAfter;
      if (e.type === 'DELETED' || after === null) this.consolidateAfter.delete(o.name);
      else this.consolidateAfter.set(o.name, after * 1000);
    }
    if (o.kind === 'nodepools') this.poolChanged(e.type === 'DELETED' ? undefined : o.nodePool, o.name, now);
    if (o.kind === 'nodeclasses') this.classChanged(e.type === 'DELETED' ? undefined : o, now);
    // A deleted class waits for its claims: the last one going lets it go.
    if (o.kind === 'nodeclaims' && e.type === 'DELETED' && this.deletingClasses.has(o.nodeClaim.spec.nodeClassRef.name)) this.statusDueSince ??= now;
    if (o.kind === 'nodes' || o.kind === 'nodeclaims') this.repairDue(e, now);
    if (o.kind === 'nodeclaims') {
      const c = o.nodeClaim;
      if (e.type === 'DELETED' || c.deletionTimestamp !== undefined || c.spec.expireAfter === null) {
        if (this.expiries.delete(o.name)) this.earliestExpiryCache = undefined;
      } else {
        const at = addSeconds(c.creationTimestamp, c.spec.expireAfter);
        if (this.expiries.get(o.name) !== at) {
          this.expiries.set(o.name, at);
          this.earliestExpiryCache = undefined;
        }
      }
    }
    if (o.kind === 'nodeclaims' && e.type === 'DELETED') this.replan(now); // e.g. a launch that found no capacity
    const print = e.type === 'DELETED' ? undefined : fingerprint(e);
    const before = this.fingerprints.get(key);
    if (print === undefined) this.fingerprints.delete(key);
    else this.fingerprints.set(key, print);
    if (print !== before && !(o.kind === 'pods' && print === 'pending' && before === undefined)) this.changed(now);
  }

  /**
   * A NodePool appeared or changed: pods already pending may fit it now (Karpenter's provisioner is triggered by
   * NodePool changes too), and its scheduled budgets set when a pass is next due.
   */
  private poolChanged(pool: NodePool | undefined, name: string, now: EpochMs): void {
    // What the spec says (the hash leaves requirements out), and whether the pool is ready to take pods.
    const spec = pool ? JSON.stringify([pool.hash, pool.template.requirements, pool.weight, pool.limits, pool.deleting === true]) : undefined;
    const print = spec === undefined ? undefined : `${spec}|${pool?.ready !== false}`;
    const before = this.poolPrints.get(name);
    if (print === undefined) this.poolPrints.delete(name);
    else this.poolPrints.set(name, print);
    if (print !== undefined && print !== before && (before !== undefined || this.provisionable.size > 0)) this.replan(now);
    // Statuses follow the spec, not the Ready the status run itself writes.
    const specBefore = before?.slice(0, before.lastIndexOf('|'));
    if (spec !== specBefore && (before !== undefined || !pool?.observedStatus)) this.statusDueSince ??= now;
    const at = pool ? nextTransition(pool, now) : undefined;
    if (pool && at !== undefined) this.budgetWindows.set(name, { pool, at });
    else this.budgetWindows.delete(name);
  }

  private classChanged(o: Extract<ObjectEvent['object'], { kind: 'nodeclasses' }> | undefined, now: EpochMs): void {
    if (!o) return;
    const nc = o.nodeClass;
    const print = nc ? `${nc.hash ?? ''}|${nc.deleting === true}|${(nc.finalizers ?? []).join(',')}` : 'invalid';
    const before = this.classPrints.get(o.name);
    this.classPrints.set(o.name, print);
    if (nc?.deleting) this.deletingClasses.add(o.name);
    else this.deletingClasses.delete(o.name);
    // New without a status yet, or its spec, deletion or finalizers changed (status writes alone change none of these).
    if (print !== before && (before !== undefined || !nc?.ready)) this.statusDueSince ??= now;
  }

  /** Garbage collection (statuses, the node class finalizer) is due: 1 s after the first change, at most every 5 s. */
  statusDue(now: EpochMs): boolean {
    return this.statusDueSince !== undefined && now >= this.statusDueSince + STATUS_SETTLE_MS && now >= this.lastStatusRun + STATUS_MIN_INTERVAL_MS;
  }

  statusStarted(now: EpochMs): void {
    this.statusDueSince = undefined;
    this.lastStatusRun = now;
  }

  /**
   * Node repair is due at an unhealthy condition's end of toleration, and 10 minutes after a repair reboot: a pass
   * then (kept with the expiries, which are also moments a pass must run at), not at the next periodic one.
   */
  private repairDue(e: ObjectEvent, now: EpochMs): void {
    const o = e.object;
    let key: string;
    let at: number | undefined;
    if (o.kind === 'nodes') {
      key = `repair#node/${o.name}`;
      const n = o.node;
      if (e.type !== 'DELETED' && n.deletionTimestamp === undefined)
        for (const c of n.unhealthy ?? []) {
          const policy = repairPolicyFor(c.type, c.status);
          if (policy) at = Math.min(at ?? Infinity, addSeconds(c.since, policy.tolerationSeconds) + 1000);
        }
    } else if (o.kind === 'nodeclaims') {
      key = `repair#claim/${o.name}`;
      const rebooted = Date.parse(o.nodeClaim.annotations[Annotation.repairRebootedAt] ?? '');
      if (e.type !== 'DELETED' && Number.isFinite(rebooted)) at = rebooted + REBOOT_GRACE_SECONDS * 1000 + 1000;
    } else return;
    if (at === undefined || at <= now) {
      if (this.expiries.delete(key)) this.earliestExpiryCache = undefined;
    } else if (this.expiries.get(key) !== at) {
      this.expiries.set(key, at as EpochMs);
      this.earliestExpiryCache = undefined;
    }
  }

  private earliestExpiry(): number {
    if (this.earliestExpiryCache === undefined) {
      let min = Infinity;
      for (const at of this.expiries.values()) if (at < min) min = at;
      this.earliestExpiryCache = min;
    }
    return this.earliestExpiryCache;
  }

  /** The time-based moments that are due (a claim's expiry, a budget window's edge). */
  private timeDue(now: EpochMs): boolean {
    if (this.earliestExpiry() <= now) return true;
    for (const w of this.budgetWindows.values()) if (w.at <= now) return true;
    return false;
  }

  /** Pods handed to a round that are still pending are planned again (their claim went away, or the round left them to the next). */
  replan(now: EpochMs): void {
    let any = false;
    for (const uid of this.provisionable.keys()) {
      this.provisionable.set(uid, false);
      any = true;
    }
    if (any) {
      this.batchFirst ??= now;
      this.batchLast = now;
    }
  }

  /** Something disruption reads changed (or may have: an edge stream that missed events). */
  changed(now: EpochMs): void {
    this.dirtySince ??= now;
  }

  batchReady(now: EpochMs): boolean {
    if (this.staticDue) return true;
    if (this.batchFirst === undefined || this.batchLast === undefined) return this.retryDue(now) || now - this.lastRound >= (this.keepWarmMs ?? Infinity);
    return now - this.batchLast >= this.t.idleMs || now - this.batchFirst >= this.t.maxBatchMs;
  }

  private retryDue(now: EpochMs): boolean {
    return this.retryAt !== undefined && this.provisionable.size > 0 && now >= this.retryAt;
  }

  /** From now on a round at least every `ms` (the provisioner's snapshot is large enough to keep warm, or not). */
  keepWarmEvery(ms: number): void {
    this.keepWarmMs = ms;
  }

  /** Closes the batch: the pods it names go to a provisioner round (which plans every pending pod). None: a keep-warm round. */
  takeBatch(now: EpochMs): string[] {
    this.lastRound = now;
    if (!this.staticDue && this.batchFirst === undefined && !this.retryDue(now)) return [];
    const retry = this.batchFirst === undefined;
    const uids = [...this.provisionable].filter(([, handed]) => retry || !handed).map(([uid]) => uid);
    for (const uid of uids) this.provisionable.set(uid, true);
    this.batchFirst = undefined;
    this.batchLast = undefined;
    this.staticDue = false;
    if (retry) this.retryDelayMs = Math.min(RETRY_MAX_MS, this.retryDelayMs * 2);
    this.retryAt = addMs(now, this.retryDelayMs);
    return uids;
  }

  disruptionDue(now: EpochMs): boolean {
    if (now - this.lastPass < this.t.minIntervalMs) return false;
    if (this.dirtySince !== undefined && now - this.dirtySince >= this.t.quietMs) return true;
    if (this.timers.some((at) => at <= now) || this.timeDue(now)) return true;
    return now >= this.nextPeriodic;
  }

  disruptionStarted(now: EpochMs): void {
    // A pass after a change records the pod events it saw at its own time: consolidateAfter counts from there,
    // so the pass that may find those nodes consolidatable is due that long after this one.
    if (this.dirtySince !== undefined) {
      for (const after of new Set(this.consolidateAfter.values())) if (after > 0 && after < this.t.everyMs) this.timers.push(addMs(now, after + 2_000));
    }
    this.lastPass = now;
    this.dirtySince = undefined;
    this.nextPeriodic = addMs(now, this.t.everyMs);
    for (let i = this.timers.length - 1; i >= 0; i--) if (this.timers[i] <= now) this.timers.splice(i, 1);
    // An expired claim's pass has run: it is now the disruption function's (it stays due only if that pass is retried
    // by the periodic one). A budget window's next edge is computed from now.
    if (this.earliestExpiry() <= now) {
      for (const [name, at] of this.expiries) if (at <= now) this.expiries.delete(name);
      this.earliestExpiryCache = undefined;
    }
    for (const [name, w] of this.budgetWindows) {
      if (w.at > now) continue;
      // A nodewright.io/schedules window that changes limits opened or closed: pods held by them are planned again now.
      if (w.pool.schedules?.some((x) => x.limits)) this.replan(now);
      const at = nextTransition(w.pool, now);
      if (at === undefined) this.budgetWindows.delete(name);
      else this.budgetWindows.set(name, { pool: w.pool, at });
    }
  }

  retryWatchAt(kind: WatchedKind, at: EpochMs): void {
    this.watchRetries.set(kind, at);
  }

  watchesDue(now: EpochMs): WatchedKind[] {
    const due = [...this.watchRetries].filter(([, at]) => at <= now).map(([k]) => k);
    for (const k of due) this.watchRetries.delete(k);
    return due;
  }

  /** The next time something is due (ms since epoch); work already running is not due again until it ends. */
  nextDue(busy: { provisioning: boolean; disrupting: boolean; collecting?: boolean }): number {
    const times: number[] = [...this.watchRetries.values()];
    if (!busy.collecting && this.statusDueSince !== undefined)
      times.push(Math.max(this.statusDueSince + STATUS_SETTLE_MS, this.lastStatusRun + STATUS_MIN_INTERVAL_MS));
    if (!busy.provisioning && this.staticDue) times.push(0);
    if (!busy.provisioning && this.batchFirst !== undefined && this.batchLast !== undefined) {
      times.push(Math.min(this.batchLast + this.t.idleMs, this.batchFirst + this.t.maxBatchMs));
    } else if (!busy.provisioning && this.retryAt !== undefined && this.provisionable.size > 0) {
      times.push(this.retryAt);
    }
    if (!busy.provisioning && this.keepWarmMs !== undefined) times.push(this.lastRound + this.keepWarmMs);
    if (!busy.disrupting) {
      const earliest = this.lastPass + this.t.minIntervalMs;
      const passes = [this.nextPeriodic, ...this.timers, this.earliestExpiry(), ...[...this.budgetWindows.values()].map((w) => w.at)];
      if (this.dirtySince !== undefined) passes.push(addMs(this.dirtySince, this.t.quietMs));
      times.push(Math.max(earliest, Math.min(...passes)));
    }
    return Math.min(...times, Infinity);
  }
}
