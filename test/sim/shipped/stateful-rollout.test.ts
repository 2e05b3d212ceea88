/**
 * The shipped scenario examples/scenarios/stateful-rollout.yaml: three single-replica databases on zonal EBS volumes
 * move through a drift rollout and a consolidation. Each node is terminated only once its volumes are detached, so
 * no database waits for the attach/detach controller's 6-minute force detach (without the wait: 7 force detaches,
 * databases down 377 s; docs/benchmarks.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario stateful-rollout', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('stateful-rollout');
  }, 600_000);

  it('should move every database with its volume through the rollout, detached before its node goes', () => {
    expectClean(r);
    expect(r.disruptions.filter((d) => d.reason === 'drifted').length).toBeGreaterThanOrEqual(3);
    expect(r.volumes.forceDetaches).toBe(0);
    expect(r.volumes.detaches).toBeGreaterThanOrEqual(3);
    // Detach (10 s) then attach (7 s) on the new node: seconds, not minutes.
    expect(r.volumes.maxStartWaitSeconds).toBeLessThanOrEqual(30);
    expect(r.final).toMatchObject({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
  });
});
