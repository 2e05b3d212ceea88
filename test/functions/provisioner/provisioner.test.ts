import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/provisioner/provisioner';
import type { Planner } from '../../../shared/core/lifecycle';
import { fakes, perPodPlanner, pod } from '../../fakes/lifecycle';

function countingPlanner() {
  const calls = { solve: 0 };
  const planner: Planner = {
    schedulingInputFromSnapshot: (s, types) => ({ pods: s.pods, nodePools: s.nodePools, instanceTypes: types, existingNodes: [], daemonSets: [] }),
    solve: () => {
      calls.solve++;
      return { nodeClaims: [], existingPlacements: [], unschedulable: [], ignored: [] };
    },
    plannedClaimToNodeClaim: () => {
      throw new Error('no claims planned');
    },
  };
  return { planner, calls };
}

describe('provisioner handler', () => {
  it('should run one round for a manual reconcile and keep polling for a scheduled event', async () => {
    // Prepare
    const f = fakes();
    f.cluster.pods = [pod('web-1', { phase: 'Pending', unschedulable: true, nodeName: undefined })];
    const manual = countingPlanner();
    const scheduled = countingPlanner();

    // Act
    const once = await createHandler({ ...f, planner: manual.planner })({ reconcile: true });
    const polling = await createHandler({ ...f, planner: scheduled.planner })({ source: 'nodewright.schedule' });

    // Assess
    expect(once.rounds).toBe(1);
    expect(polling.rounds).toBe(1);
    expect(f.clock.now() - Date.UTC(2026, 0, 1)).toBeGreaterThanOrEqual(48_000);
  });

  it('should use the Lambda request id as lease holder', async () => {
    // Prepare
    const f = fakes();
    const { planner } = countingPlanner();
    await f.store.acquireLease('provisioner', 'req-1', 60);

    // Act
    const sameHolder = await createHandler({ ...f, planner })({}, { awsRequestId: 'req-1' } as never);
    await f.store.acquireLease('provisioner', 'req-1', 60);
    const other = await createHandler({ ...f, planner })({}, { awsRequestId: 'req-2' } as never);

    // Assess
    expect(sameHolder.skipped).toBe(false);
    expect(other.skipped).toBe(true);
  });

  it('should stop creating claims at half its timeout, whatever the controller allows', async () => {
    // Prepare: 40 pods, one claim each, each create taking 0.5 s of the one clock (20 s for all), 20 s left in the invocation
    const f = fakes();
    f.cluster.pods = Array.from({ length: 40 }, (_, i) => pod(`web-${i}`, { phase: 'Pending', unschedulable: true, nodeName: undefined }));
    const create = f.cluster.createNodeClaim.bind(f.cluster);
    f.cluster.createNodeClaim = async (claim) => {
      await new Promise((r) => setTimeout(r, 0));
      f.clock.advance(500);
      return create(claim);
    };
    const start = f.clock.now();
    const handler = createHandler({ ...f, planner: perPodPlanner });

    // Act
    const round = await handler({ reconcile: true, batched: true, deadlineMs: start + 600_000 }, { getRemainingTimeInMillis: () => 20_000 } as never);

    // Assess: no create started after 10 s (those in flight then end within 16 × 0.5 s); the rest is the next round's
    expect(round.nodeClaims.length).toBeGreaterThan(0);
    expect(round.deferred).toBeGreaterThan(0);
    expect(round.deferred).toBe(40 - round.nodeClaims.length);
    expect(f.clock.now() - start).toBeLessThanOrEqual(18_000);
  });

  it("should stop creating claims 15 s before the controller's call must end, and refuse a deadline that is not a time", async () => {
    // Prepare: a call that must end 10 s from now
    const f = fakes();
    f.cluster.pods = [pod('web-1', { phase: 'Pending', unschedulable: true, nodeName: undefined })];
    const { planner, calls } = countingPlanner();
    const handler = createHandler({ ...f, planner });

    // Act
    const late = await handler({ reconcile: true, batched: true, deadlineMs: f.clock.now() + 10_000 });
    const bad = handler({ reconcile: true, batched: true, deadlineMs: 'soon' });

    // Assess: the round plans (its claims go to the next round), the bad input does nothing
    expect(late.rounds).toBe(1);
    await expect(bad).rejects.toMatchObject({ name: 'ExecutionInputInvalidError', message: expect.stringMatching(/provisioner input: deadlineMs must be/) });
    expect(calls.solve).toBe(1);
    expect(f.cluster.writes).toEqual([]);
  });
});
