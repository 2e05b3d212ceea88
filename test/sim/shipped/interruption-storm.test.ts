/**
 * The shipped scenario examples/scenarios/interruption-storm.yaml (issue #28's storm at the size the tests run):
 * 50 spot nodes under `minAvailable: 90%`, 20 spot interruption warnings within a minute, on the production
 * handlers, queue settings and state machines. bench/scenarios/interruption-storm-500.yaml is the same at 500
 * nodes and 200 warnings (`npm run bench -- storm`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario interruption-storm', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('interruption-storm');
  }, 300_000);

  it('should drain every interrupted node before its reclaim and lose no pod, keeping the PDB', () => {
    expectClean(r);
    const interrupted = r.nodes.filter((n) => n.interruptedAt !== undefined);
    expect(interrupted).toHaveLength(20);
    expect(r.disruptions.filter((d) => d.reason === 'interrupted')).toHaveLength(20);
    for (const n of interrupted) expect(n.terminatedAt! - n.interruptedAt!, n.name).toBeLessThan(120);
    expect(r.pods.minReadyAfterRollout['default/web']).toBeGreaterThanOrEqual(45);
    expect(r.final.pendingPods).toBe(0);
  });

  it('should handle every message of the storm, dead-lettering or expiring none', () => {
    // 20 warnings, then each instance's shutting-down and terminated state changes.
    expect(r.interruptionQueue).toEqual({ handled: 60, deadLettered: 0, expired: 0, queued: 0 });
  });

  it('should read Kubernetes by name per message, a count that does not grow with the cluster', () => {
    // Before issue #28 each batch read a full snapshot: 482 requests for these 60 messages, more with every node.
    expect(r.controller.lambda.functions.interruption.kubeRequests / r.interruptionQueue.handled).toBeLessThanOrEqual(3);
  });
});
