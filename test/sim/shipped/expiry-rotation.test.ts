/**
 * The shipped scenario examples/scenarios/expiry-rotation.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario expiry-rotation', () => {
  it('should rotate every node past expireAfter and keep the deployment at replicas - 1 ready or better', async () => {
    const r = await runShipped('expiry-rotation');
    expectClean(r);
    expect(r.disruptions.filter((d) => d.reason === 'expired').length).toBeGreaterThanOrEqual(6);
    expect(r.nodes.filter((n) => n.terminationReason !== undefined && /expire/i.test(n.terminationReason)).length).toBeGreaterThanOrEqual(6);
    expect(r.pods.minReadyAfterRollout['default/app']).toBeGreaterThanOrEqual(5);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
