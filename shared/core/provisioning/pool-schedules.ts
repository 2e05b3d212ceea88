/**
 * `nodewright.io/schedules` applied: a NodePool as it stands at `now` — each open window's limits and consolidation
 * settings replace the pool's own (later windows win) — and the next moment a window opens or closes, so the
 * controller can act then.
 */
import { budgetActive, nextWindowEdge } from '../disruption/budgets';
import type { NodePool } from '../model/karpenter';
import type { ClusterSnapshot } from '../ports/cluster-client';
import type { EpochMs } from '../time';

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
  return nextWindowEdge(pool.schedules ?? [], now);
}
