/**
 * The shipped scenario examples/scenarios/savings-plan.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario savings-plan', () => {
  it('should fill the weighted savings-plan pool up to its CPU limit, then use the default pool', async () => {
    const r = await runShipped('savings-plan');
    expectClean(r);
    const plan = r.nodes.filter((n) => n.nodePool === 'savings-plan');
    expect(plan.length).toBeGreaterThanOrEqual(1);
    expect(plan.every((n) => n.instanceType.startsWith('m5.'))).toBe(true);
    const vcpu = (t: string) =>
      ({ large: 2, xlarge: 4, '2xlarge': 8, '4xlarge': 16, '8xlarge': 32, '12xlarge': 48, '16xlarge': 64, '24xlarge': 96 })[t.split('.')[1]] ?? 999;
    const live = plan.filter((n) => n.terminatedAt === undefined);
    expect(live.reduce((s, n) => s + vcpu(n.instanceType), 0)).toBeLessThanOrEqual(16);
    expect(r.nodes.some((n) => n.nodePool === 'default')).toBe(true);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
