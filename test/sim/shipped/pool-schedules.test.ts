/**
 * The shipped scenario examples/scenarios/pool-schedules.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary: a drift rollout paced by
 * nodewright.io/disruption-rate, and pods held by a nodewright.io/schedules window with no room for new nodes.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, MINUTES, runShipped } from './helpers';

describe('shipped scenario pool-schedules', () => {
  it('should replace the drifted nodes at most two per 20 minutes, and launch for the pods added in the closed window only after it', async () => {
    const r = await runShipped('pool-schedules');
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    const starts = r.disruptions.filter((d) => d.reason === 'drifted').map((d) => d.t);
    expect(starts).toHaveLength(6);
    // No 20-minute window holds more than two starts.
    for (const t of starts) expect(starts.filter((u) => u >= t && u < t + 20 * MINUTES).length).toBeLessThanOrEqual(2);
    // The pods added at 55m11s wait for 10:10 UTC (70 minutes in), then get nodes at once.
    const late = r.pods.launchLatencyAfterEvents.find((e) => e.at === 55 * MINUTES + 11);
    expect(late?.pods).toBe(2);
    expect(late?.p50).toBeGreaterThanOrEqual(70 * MINUTES - (55 * MINUTES + 11));
    expect(late?.p99).toBeLessThan(70 * MINUTES - (55 * MINUTES + 11) + 60);
  }, 300_000);
});
