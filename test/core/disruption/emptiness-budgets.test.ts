import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import { nextBudgetTransition } from '../../../shared/core/disruption/budgets';
import { ago, bound, c6g, claimNames, cluster, HOUR, input, managed, NOW, pool } from './builders';
import { addSeconds, epochMs } from '../../../shared/core/time';

const tenEmpty = (budgetNodes: string, extra: Parameters<typeof pool>[0] = {}) => {
  const p = pool({ budgets: [{ nodes: budgetNodes }], ...extra });
  const nodes = Array.from({ length: 10 }, (_, i) => managed(`n${i}`, { pool: p, type: c6g.xlarge }));
  return { p, nodes, snap: cluster({ pools: [p], nodes }) };
};

describe('emptiness and budgets', () => {
  it.each([
    ['0%', 0],
    ['30%', 3],
    ['100%', 10],
    ['4', 4],
  ])('should delete as many empty nodes as budget %s allows in one command', (nodes, expected) => {
    // Prepare
    const { snap } = tenEmpty(nodes);

    // Act
    const d = computeDisruption(input(snap, [c6g.large, c6g.xlarge]));

    // Assess
    expect(d.command?.candidates.length ?? 0).toBe(expected);
    if (expected > 0) expect(d.command).toMatchObject({ method: 'emptiness', reason: 'empty', action: 'delete', replacements: [] });
    expect(d.audit.filter((r) => r.action === 'rejected' && String(r.detail.why).startsWith('budget')).length).toBe(10 - expected);
  });

  it('should round a percentage budget up', () => {
    // Prepare: 10% of 3 nodes = 0.3 → 1
    const p = pool({ budgets: [{ nodes: '10%' }] });
    const nodes = Array.from({ length: 3 }, (_, i) => managed(`n${i}`, { pool: p, type: c6g.xlarge }));

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes }), [c6g.xlarge]));

    // Assess
    expect(d.command?.candidates).toHaveLength(1);
  });

  it('should count nodes already being disrupted against the budget', () => {
    // Prepare: budget 3, two nodes already disrupting
    const p = pool({ budgets: [{ nodes: '3' }] });
    const nodes = [
      ...Array.from({ length: 5 }, (_, i) => managed(`n${i}`, { pool: p, type: c6g.xlarge })),
      managed('busy-1', { pool: p, type: c6g.xlarge, disrupted: true }),
      managed('busy-2', { pool: p, type: c6g.xlarge, deleting: true }),
    ];

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes }), [c6g.xlarge]));

    // Assess
    expect(d.command?.candidates).toHaveLength(1);
    expect(claimNames(d.command?.candidates)).not.toContain('claim-busy-1');
  });

  it('should take the minimum of the active budgets and ignore budgets for other reasons', () => {
    // Prepare
    const { snap } = tenEmpty('50%', { budgets: [{ nodes: '50%' }, { nodes: '2' }, { nodes: '0', reasons: ['Drifted'] }] });

    // Act
    const d = computeDisruption(input(snap, [c6g.xlarge]));

    // Assess
    expect(d.command?.candidates).toHaveLength(2);
  });

  it('should apply a scheduled budget only within its window (UTC cron + duration)', () => {
    // Prepare: budget 0 every day 00:00 for 8h; NOW is 2027-01-15T08:00:00Z
    const now = epochMs(Date.UTC(2027, 0, 15, 8, 0, 0));
    const mk = () => {
      const p = pool({ budgets: [{ nodes: '100%' }, { nodes: '0', schedule: '0 0 * * *', duration: 9 * HOUR }] });
      const nodes = [managed('n0', { pool: p, type: c6g.xlarge, createdAt: addSeconds(now, -HOUR) })];
      return cluster({ pools: [p], nodes });
    };
    const outside = mk();
    outside.nodePools[0].disruption.budgets[1].duration = 7 * HOUR;

    // Act
    const inside = computeDisruption(input(mk(), [c6g.xlarge], { now }));
    const after = computeDisruption(input(outside, [c6g.xlarge], { now }));

    // Assess
    expect(inside.command).toBeUndefined();
    expect(after.command?.candidates).toHaveLength(1);
  });

  it('should fail closed on an invalid budget', () => {
    // Prepare
    const { snap } = tenEmpty('100%', { budgets: [{ nodes: '100%' }, { nodes: 'lots' }] });

    // Act
    const d = computeDisruption(input(snap, [c6g.xlarge]));

    // Assess
    expect(d.command).toBeUndefined();
    expect(d.audit.some((r) => String(r.detail.why).includes('fails closed'))).toBe(true);
  });

  it('should expire claims past expireAfter even when the budget is 0', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '0' }], expireAfter: 720 * HOUR });
    const old = managed('old', { pool: p, type: c6g.xlarge, createdAt: ago(721 * HOUR) });
    const young = managed('young', { pool: p, type: c6g.xlarge, createdAt: ago(10 * HOUR) });
    const snap = cluster({ pools: [p], nodes: [old, young], pods: [bound(old), bound(young)] });

    // Act
    const d = computeDisruption(input(snap, [c6g.xlarge], { now: NOW }));

    // Assess
    expect(d.expirations.map((c) => c.candidates[0].nodeClaim.name)).toEqual(['claim-old']);
    expect(d.expirations[0]).toMatchObject({ method: 'expiration', reason: 'expired', action: 'delete', replacements: [] });
    expect(d.command).toBeUndefined();
    expect(d.audit.find((r) => r.action === 'expired')?.nodeClaims).toEqual(['claim-old']);
  });
});

describe('emptiness command size', () => {
  it('should put at most 100 empty nodes in one command (the disrupt execution limit)', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const nodes = Array.from({ length: 120 }, (_, i) => managed(`n${i}`, { pool: p, type: c6g.large }));

    // Act
    const d = computeDisruption(input(cluster({ pools: [p], nodes }), [c6g.large]));

    // Assess
    expect(d.command?.candidates).toHaveLength(100);
    expect(d.audit.filter((r) => String(r.detail.why).startsWith('left for the next pass'))).toHaveLength(20);
  });
});

describe('scheduled budget windows', () => {
  it('should give the next moment a scheduled budget opens or closes, so a pass can run then', () => {
    // Prepare: 09:00–09:20 UTC every day, and a budget without a schedule (no transitions).
    const p = pool({ budgets: [{ nodes: '0', schedule: '0 9 * * *', duration: 20 * 60 }, { nodes: '10%' }] });
    const at = (iso: string) => epochMs(Date.parse(iso));

    // Act / Assess: inside the window the next edge is its end; after it, the next day's start.
    expect(nextBudgetTransition(p, at('2025-01-06T09:05:00Z'))).toBe(at('2025-01-06T09:20:00Z'));
    expect(nextBudgetTransition(p, at('2025-01-06T09:20:00Z'))).toBe(at('2025-01-07T09:00:00Z'));
    expect(nextBudgetTransition(p, at('2025-01-06T08:59:30Z'))).toBe(at('2025-01-06T09:00:00Z'));
    expect(nextBudgetTransition(pool({ budgets: [{ nodes: '10%' }] }), at('2025-01-06T09:05:00Z'))).toBeUndefined();
  });
});
