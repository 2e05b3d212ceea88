/**
 * `nodewright.io/schedules` applied: a NodePool as it stands at `now` — each open window's limits and consolidation
 * settings replace the pool's own (later windows win) — and the next moment a window opens or closes, so the
 * controller can act then.
 */
import { CronExpressionParser } from 'cron-parser';
import { budgetActive } from '../disruption/budgets';
import type { NodePool } from '../model/karpenter';
import type { ClusterSnapshot } from '../ports/cluster-client';
import { addSeconds, type EpochMs } from '../time';

/** The pool with its open windows applied (the same object when none is open). */
export function scheduledPool(pool: NodePool, now: EpochMs): NodePool {
  let out = pool;
  for (const s of pool.schedules ?? []) {
    if (budgetActive({ nodes: '0', schedule: s.schedule, duration: s.duration }, now) !== true) continue;
    out = {
      ...out,
      ...(s.limits ? { limits: s.limits } : {}),
      disruption: {
        ...out.disruption,
        ...(s.consolidationPolicy ? { consolidationPolicy: s.consolidationPolicy } : {}),
        ...(s.consolidateAfter !== undefined ? { consolidateAfter: s.consolidateAfter } : {}),
      },
    };
  }
  return out;
}

/** The snapshot with every pool's open windows applied. */
export function withScheduledPools<T extends Pick<ClusterSnapshot, 'nodePools'>>(snapshot: T, now: EpochMs): T {
  if (!snapshot.nodePools.some((p) => p.schedules?.length)) return snapshot;
  return { ...snapshot, nodePools: snapshot.nodePools.map((p) => scheduledPool(p, now)) };
}

/** The next time after `now` one of the pool's windows opens or closes. */
export function nextScheduleTransition(pool: NodePool, now: EpochMs): EpochMs | undefined {
  let next: number | undefined;
  const consider = (t: number) => {
    if (t > now && (next === undefined || t < next)) next = t;
  };
  for (const s of pool.schedules ?? []) {
    try {
      const open = CronExpressionParser.parse(s.schedule, { currentDate: new Date(addSeconds(now, -s.duration)), tz: 'UTC' })
        .next()
        .getTime();
      if (open <= now) consider(open + s.duration * 1000);
      consider(
        CronExpressionParser.parse(s.schedule, { currentDate: new Date(now), tz: 'UTC' })
          .next()
          .getTime(),
      );
    } catch {
      // An invalid cron was refused when the pool was read.
    }
  }
  return next as EpochMs | undefined;
}
