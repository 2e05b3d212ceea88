/**
 * The shipped scenario examples/scenarios/scheduled-overprovisioning.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, MINUTES, runShipped } from './helpers';

describe('shipped scenario scheduled-overprovisioning', () => {
  it('should have the extra capacity running before the known peak', async () => {
    const r = await runShipped('scheduled-overprovisioning');
    expectClean(r);
    const atPeak = r.timeline.filter((p) => p.t >= 14 * MINUTES && p.t <= 20 * MINUTES);
    expect(atPeak.length).toBeGreaterThan(0);
    expect(atPeak.every((p) => p.pendingPods === 0)).toBe(true);
    expect(Math.max(...r.timeline.map((p) => p.nodes))).toBeGreaterThan(r.timeline[0].nodes);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
