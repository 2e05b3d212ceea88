/**
 * The shipped scenario examples/scenarios/steady-100-nodes.yaml: the controller's own AWS bill for a steady
 * 100-node cluster with a few launches an hour (issue #8's target: ≤ $10/month; Karpenter's controller ≈ $65).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario steady-100-nodes', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('steady-100-nodes');
  }, 600_000);

  it('should keep 100 nodes with every scale-up launched in seconds and nothing lost', () => {
    expectClean(r);
    expect(r.violations.podsLost).toBe(0);
    expect(r.final.nodes).toBe(100);
    expect(r.final.pendingPods).toBe(0);
    expect(r.pods.maxLaunchLatencySeconds).toBeLessThanOrEqual(15);
  });

  it('should cost the controller at most $10 a month in the steady state', () => {
    expect(r.controller.periodSeconds).toBe(3 * 3600);
    expect(r.controller.usdPerMonth.total).toBeLessThanOrEqual(10);
    expect(r.controller.lambda.functions.controller.memoryMB).toBe(160);
    expect(r.controller.lambda.functions.controller.architecture).toBe('arm64');
  });
});
