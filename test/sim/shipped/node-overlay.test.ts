/**
 * The shipped scenario examples/scenarios/node-overlay.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary: a Savings Plan overlay steers every launch and
 * consolidation to m7i, a huge-pages overlay gets the database pods their nodes, a rival overlay of the same weight
 * is set aside with a Conflict condition, and the bill is EC2's prices, not the overlay's.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario node-overlay', () => {
  it('should launch and consolidate by the overlay prices, schedule the huge-pages pods, and set aside the conflicting overlay', async () => {
    const r = await runShipped('node-overlay');
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    // -40% on m7i on-demand makes it the cheapest family for this pool: every node is an m7i.
    expect(r.nodes.length).toBeGreaterThanOrEqual(2);
    expect(r.nodes.every((n) => n.instanceType.startsWith('m7i.'))).toBe(true);
    // Consolidation after the scale-down weighed the same prices and kept to m7i.
    expect(r.nodes.some((n) => n.terminatedAt !== undefined)).toBe(true);
    expect(r.final.nodeOverlays?.['savings-plan-m7i']).toEqual({ ready: 'True' });
    expect(r.final.nodeOverlays?.hugepages).toEqual({ ready: 'True' });
    expect(r.final.nodeOverlays?.['rival-discount']).toMatchObject({ ready: 'False', reason: 'Conflict' });
    expect(r.final.nodeOverlays?.['rival-discount']?.message).toMatch(/savings-plan-m7i \(same weight 10\)/);
    // The bill is EC2's: an m7i.large and an m7i.2xlarge at list price ($0.1008 + $0.4032), not 60 % of it.
    expect(r.cost.perHourAtEnd).toBeCloseTo(0.504, 3);
  }, 300_000);
});
