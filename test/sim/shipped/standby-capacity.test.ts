/**
 * The shipped scenario examples/scenarios/standby-capacity.yaml runs end to end on the simulator — the production
 * handlers, adapters and state machines, EC2 stop/start and its billing — against the same run with an active buffer
 * and with none: standby pods wait for a start (tens of seconds) instead of a launch, and the idle headroom bills only
 * its volumes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

const text = readFileSync(new URL('../../../examples/scenarios/standby-capacity.yaml', import.meta.url), 'utf8');

describe('shipped scenario standby-capacity', () => {
  it('should keep the headroom stopped, start it for the scale-up, launch the next chunk stopped, and bill the idle headroom as volumes only', async () => {
    const r = await runShipped('standby-capacity');
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    // The standby node was stopped until the scale-up, then started; its successor is stopped again.
    expect(r.nodes.every((n) => (n.stoppedSeconds ?? 0) > 0)).toBe(true);
    expect(r.nodes).toHaveLength(2);
    // No launch for the scale-up's pods: they waited for a start.
    expect(r.pods.launchLatencyPods).toBe(0);
    const active = await runScenario(
      parseScenario(
        text.replace('provisioningStrategy: nodewright.io/standby-capacity', 'provisioningStrategy: buffer.x-k8s.io/active-capacity'),
        'active.yaml',
      ),
    );
    const start = text.indexOf('  apiVersion: autoscaling.x-k8s.io/v1beta1');
    const none = await runScenario(parseScenario(text.slice(0, start) + text.slice(text.indexOf('  ---\n', start) + 6), 'none.yaml'));
    expectClean(active);
    expectClean(none);
    // Time from pending to a node: running headroom < standby < a launch.
    expect(active.pods.pendingSecondsP99).toBeLessThan(r.pods.pendingSecondsP99);
    expect(r.pods.pendingSecondsP99).toBeLessThan(none.pods.pendingSecondsP99);
    expect(r.pods.pendingSecondsP99).toBeLessThan(45);
    // Compute while the headroom sat idle: the standby run's is a fraction of the active one's.
    expect(r.cost.total).toBeLessThan(active.cost.total / 2);
  }, 300_000);
});
