/**
 * The shipped scenario examples/scenarios/capacity-buffer.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary, against the same run without its CapacityBuffer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario capacity-buffer', () => {
  it('should start every scale-up that fits the headroom at once, launch the next chunks behind it, and keep the headroom through consolidation', async () => {
    const r = await runShipped('capacity-buffer');
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    // No pod of the 10m07s and 20m11s scale-ups waited for a launch: the buffer's room took them.
    expect(r.pods.launchLatencyAfterEvents).toEqual([]);
    expect(r.final.capacityBuffers).toEqual({ 'default/web-headroom': { replicas: 4, provisioning: 'True/FitsExistingCapacity' } });

    // The same run without the buffer: both scale-ups wait for new nodes, for less money.
    const text = readFileSync(new URL('../../../examples/scenarios/capacity-buffer.yaml', import.meta.url), 'utf8');
    const start = text.indexOf('  apiVersion: autoscaling.x-k8s.io/v1beta1');
    const without = text.slice(0, start) + text.slice(text.indexOf('  ---\n', start) + 6);
    const n = await runScenario(parseScenario(without, 'no-buffer.yaml'));
    expectClean(n);
    expect(n.pods.launchLatencyAfterEvents.map((e) => e.at)).toEqual([607, 1211]);
    expect(n.cost.total).toBeLessThan(r.cost.total);
  }, 300_000);
});
