/**
 * The shipped scenario examples/scenarios/scale-5k.yaml at 1/25 of its size (200 nodes, 2,000 pods, a 400-pod burst,
 * 8 spot interruptions, a 600-pod scale-down), so `npm test` stays short; `npm run bench -- scale` runs it at 500,
 * 2,000 and 5,000 nodes (docs/benchmarks.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario scale-5k at 1/25', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('scale-5k', { scale: 1 / 25 });
  }, 900_000);

  it('should place the burst and lose nothing through the storm and the consolidation wave', () => {
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    expect(r.pods.launchLatencySecondsP99).toBeLessThanOrEqual(15);
  });
});
