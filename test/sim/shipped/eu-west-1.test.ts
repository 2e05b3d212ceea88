/**
 * The shipped scenario examples/scenarios/eu-west-1.yaml (issue #10): Karpenter's getting-started on-demand
 * NodePool in a region the bundled catalog has no prices for. Before garbage collection has read the Price
 * List API, the bundled us-east-1 list prices stand in; afterwards the region's own prices are used.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario eu-west-1', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('eu-west-1');
  }, 300_000);

  it("should launch on-demand capacity in eu-west-1, first at the us-east-1 estimate, then at the Price List API's price", () => {
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    expect(r.nodes.length).toBeGreaterThanOrEqual(2);
    expect(r.nodes.every((n) => n.capacityType === 'on-demand' && n.zone.startsWith('eu-west-1'))).toBe(true);
    expect(r.pods.maxLaunchLatencySeconds).toBeLessThanOrEqual(10);
    expect(r.events.some((e) => e.message === 'refreshed on-demand prices from the Price List API')).toBe(true);
  });
});
