/**
 * Disruption budgets (docs/karpenter-reference.md §1.1, §4.5): allowed = max(0, min(active budgets over N) − disrupting), per
 * NodePool and reason. Percentages round up; a cron budget is active when its last hit is within `duration`;
 * an invalid budget fails closed (0). No budget applying to a reason means no limit.
 */
import { CronExpressionParser } from 'cron-parser';
import type { Budget, DisruptionReason, NodePool } from '../model/karpenter';
import type { EpochMs } from '../time';
import { addSeconds } from '../time';

const NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;

/** Nodes the budget allows out of `total`, or 0 when the value is invalid. */
function budgetNodes(budget: Budget, total: number): number {
  const v = budget.nodes.trim();
  if (!NODES.test(v)) return 0;
  if (v.endsWith('%')) return Math.ceil((total * Number(v.slice(0, -1))) / 100);
  return Number(v);
}

/** True when the budget applies now; throws nothing: an unparsable schedule is reported as invalid. */
export function budgetActive(budget: Budget, nowMs: EpochMs): boolean | 'invalid' {
  if (budget.schedule === undefined && budget.duration === undefined) return true;
  if (budget.schedule === undefined || budget.duration === undefined) return 'invalid';
  try {
    const expr = CronExpressionParser.parse(budget.schedule, { currentDate: new Date(addSeconds(nowMs, -budget.duration)), tz: 'UTC' });
    return expr.next().getTime() <= nowMs;
  } catch {
    return 'invalid';
  }
}

/**
 * The next moment after `nowMs` when one of the pool's scheduled budgets opens or closes (a cron hit, or a hit plus
 * its duration), so the controller can run a disruption pass then rather than at its next periodic pass.
 */
export function nextBudgetTransition(pool: NodePool, nowMs: EpochMs): EpochMs | undefined {
  return nextWindowEdge(
    pool.disruption.budgets.flatMap((b) => (b.schedule !== undefined && b.duration !== undefined ? [{ schedule: b.schedule, duration: b.duration }] : [])),
    nowMs,
  );
}

/** The next moment after `nowMs` one of these UTC cron windows (a hit, open for `duration` seconds) opens or closes. */
export function nextWindowEdge(windows: readonly { schedule: string; duration: number }[], nowMs: EpochMs): EpochMs | undefined {
  let next: number | undefined;
  const consider = (t: number) => {
    if (t > nowMs && (next === undefined || t < next)) next = t;
  };
  for (const w of windows) {
    try {
      // The window that may be open now (its hit within the last `duration`) closes at hit + duration.
      const open = CronExpressionParser.parse(w.schedule, { currentDate: new Date(addSeconds(nowMs, -w.duration)), tz: 'UTC' })
        .next()
        .getTime();
      if (open <= nowMs) consider(open + w.duration * 1000);
      consider(
        CronExpressionParser.parse(w.schedule, { currentDate: new Date(nowMs), tz: 'UTC' })
          .next()
          .getTime(),
      );
    } catch {
      // An invalid schedule fails closed at every pass (budgets) or is refused when read (schedules): no transitions.
    }
  }
  return next as EpochMs | undefined;
}

export interface PoolCounts {
  /** Managed, initialized nodes of the pool that are not terminating (N). */
  total: number;
  /** Nodes that are NotReady or already being disrupted / deleted. */
  disrupting: number;
  /** Disruptions this pass already chose (node repair before the other methods): they use the rate up too. */
  started?: number;
}

/** Allowed disruptions for one pool and reason; `Infinity` when no budget applies. */
export function allowedDisruptions(pool: NodePool, reason: DisruptionReason, counts: PoolCounts, nowMs: EpochMs): { allowed: number; why: string } {
  let min = Infinity;
  let why = 'no budget applies';
  for (const b of pool.disruption.budgets) {
    if (b.reasons && !b.reasons.includes(reason)) continue;
    const active = budgetActive(b, nowMs);
    if (active === 'invalid') return { allowed: 0, why: `invalid budget ${JSON.stringify(b)} (fails closed)` };
    if (!active) continue;
    const n = budgetNodes(b, counts.total);
    if (n === 0 && !NODES.test(b.nodes.trim())) return { allowed: 0, why: `invalid budget nodes "${b.nodes}" (fails closed)` };
    if (n < min) {
      min = n;
      why = `budget nodes "${b.nodes}"${b.schedule ? ` schedule "${b.schedule}"` : ''} of ${counts.total} nodes`;
    }
  }
  let allowed = Math.max(0, min - counts.disrupting);
  let rateWhy = '';
  // nodewright.io/disruption-rate: how many started within the window, whatever the reason.
  const rate = pool.disruption.rate;
  if (rate) {
    const n = budgetNodes({ nodes: rate.nodes }, counts.total);
    const since = addSeconds(nowMs, -rate.windowSeconds);
    const used = (pool.disruption.rateLedger ?? []).filter((t) => t > since).length + (counts.started ?? 0);
    const left = Math.max(0, n - used);
    rateWhy = `; rate ${rate.nodes}/${rate.windowSeconds}s: ${used} started in the window → ${left} left`;
    allowed = Math.min(allowed, left);
  }
  return { allowed, why: `${why}, ${counts.disrupting} disrupting${rateWhy} → ${allowed === Infinity ? 'unlimited' : allowed} allowed` };
}

/** Remaining budget per pool for one reason during a pass; taking a node decrements it. */
export class BudgetTracker {
  private readonly left = new Map<string, number>();
  private readonly whys = new Map<string, string>();
  constructor(pools: NodePool[], reason: DisruptionReason, counts: Map<string, PoolCounts>, nowMs: EpochMs) {
    for (const p of pools) {
      const r = allowedDisruptions(p, reason, counts.get(p.name) ?? { total: 0, disrupting: 0 }, nowMs);
      this.left.set(p.name, r.allowed);
      this.whys.set(p.name, r.why);
    }
  }
  remaining(pool: string): number {
    return this.left.get(pool) ?? 0;
  }
  why(pool: string): string {
    return this.whys.get(pool) ?? 'nodepool not found';
  }
  /** Takes one node from the pool's budget; false when none is left. */
  take(pool: string): boolean {
    const n = this.remaining(pool);
    if (n <= 0) return false;
    this.left.set(pool, n - 1);
    return true;
  }
  /** True when `count` more nodes of the pool fit. */
  fits(pool: string, count: number): boolean {
    return this.remaining(pool) >= count;
  }
}
