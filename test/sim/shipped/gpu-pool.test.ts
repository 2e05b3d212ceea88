/**
 * The shipped scenario examples/scenarios/gpu-pool.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, MINUTES, runShipped } from './helpers';

describe('shipped scenario gpu-pool', () => {
  it('should put only the tolerating GPU pod on a GPU node and remove that node after the job', async () => {
    const r = await runShipped('gpu-pool');
    expectClean(r);
    const gpu = r.nodes.filter((n) => n.nodePool === 'gpu');
    expect(gpu.length).toBeGreaterThanOrEqual(1);
    expect(gpu.every((n) => /^(p|g)\d/.test(n.instanceType))).toBe(true);
    expect(gpu.every((n) => n.terminatedAt !== undefined && n.terminatedAt > 15 * MINUTES)).toBe(true);
    expect(r.nodes.filter((n) => n.nodePool === 'general').length).toBeGreaterThanOrEqual(1);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
