import { describe, expect, it } from 'vitest';
import { runProvisioner, nodeClaimName, type Planner } from '../../../shared/core/lifecycle';
import type { Pod } from '../../../shared/core/model/kube';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import { fakes, pendingInput, plannedClaim, plannedToNodeClaim, pod, type Fakes } from '../../fakes/lifecycle';

const pending = (name: string): Pod => pod(name, { phase: 'Pending', unschedulable: true, nodeName: undefined });

/** One claim per solve holding every pod, recording what each solve saw and when. */
function recordingPlanner(f: Fakes) {
  const solves: { at: number; pods: string[] }[] = [];
  const planner: Planner = {
    schedulingInputFromSnapshot: pendingInput,
    solve: (input: SchedulingInput) => {
      solves.push({ at: f.clock.now(), pods: input.pods.map((p) => p.name) });
      const claim = plannedClaim(input.pods);
      return { nodeClaims: [claim], existingPlacements: [], unschedulable: [], ignored: [] };
    },
    plannedClaimToNodeClaim: plannedToNodeClaim,
  };
  return { planner, solves };
}

/** Runs `arrive(elapsedMs)` on each clock sleep, so pods can show up while the provisioner batches. */
function onSleep(f: Fakes, arrive: (elapsedMs: number) => void) {
  const start = f.clock.now();
  f.clock.sleep = async (ms: number) => {
    f.clock.advance(ms);
    arrive(f.clock.now() - start);
  };
}

describe('runProvisioner', () => {
  it('should batch pods that arrive within the idle window into one nodeclaim and start its launch', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);
    f.cluster.pods = [pending('web-1')];
    onSleep(f, (elapsed) => {
      if (elapsed === 1000) f.cluster.pods.push(pending('web-2'));
    });

    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1', once: true });

    // Assess
    expect(solves).toEqual([{ at: f.clock.now(), pods: ['web-1', 'web-2'] }]);
    expect(result.nodeClaims).toHaveLength(1);
    expect(result.nodeClaims[0]).toMatch(/^default-[a-z0-9]{5}$/);
    expect(f.workflows.started).toEqual([{ machine: 'launch', name: result.nodeClaims[0], input: { nodeClaimName: result.nodeClaims[0] } }]);
    expect(f.log.messages()).toEqual(expect.arrayContaining(['found provisionable pod(s)', 'computed new nodeclaim(s) to fit pod(s)', 'created nodeclaim']));
  });

  it("should record Karpenter's Nominated and FailedScheduling events on the pods", async () => {
    // Prepare: the planner puts web-1 on a new claim and cannot place web-2.
    const f = fakes();
    const { planner } = recordingPlanner(f);
    const solve = planner.solve;
    planner.solve = (input) => {
      const plan = solve({ ...input, pods: input.pods.filter((p) => p.name === 'web-1') }) as ReturnType<Planner['solve']> & { unschedulable: unknown[] };
      return {
        ...plan,
        unschedulable: input.pods
          .filter((p) => p.name === 'web-2')
          .map((p) => ({ pod: p, reason: 'incompatible with nodepool "default", no instance type satisfied resources' })),
      };
    };
    f.cluster.pods = [pending('web-1'), pending('web-2')];
    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1', once: true, batched: true });
    // Assess
    // (FailedScheduling first: a burst's Nominated events may not all be written by the round's deadline)
    expect(f.cluster.events).toEqual([
      'Pod/default/web-2 FailedScheduling: Failed to schedule pod, incompatible with nodepool "default", no instance type satisfied resources',
      `Pod/default/web-1 Nominated: Pod should schedule on: nodeclaim/${result.nodeClaims[0]}`,
    ]);
  });

  it('should close the batch after 10 seconds even while pods keep arriving', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);
    const start = f.clock.now();
    f.cluster.pods = [pending('p-0')];
    onSleep(f, (elapsed) => f.cluster.pods.push(pending(`p-${elapsed}`)));

    // Act
    await runProvisioner(f, planner, { holder: 'req-1', once: true });

    // Assess
    expect(solves).toHaveLength(1);
    expect(solves[0].at - start).toBe(10_000);
    expect(solves[0].pods.length).toBeGreaterThan(5);
  });

  it('should keep polling while pods are pending and react to new pods within the same invocation', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);
    f.cluster.pods = [pending('web-1')];
    onSleep(f, (elapsed) => {
      if (elapsed >= 20_000 && !f.cluster.pods.some((p) => p.name === 'web-2')) f.cluster.pods.push(pending('web-2'));
    });

    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1' });

    // Assess
    expect(result.rounds).toBe(2);
    expect(solves.map((s) => s.pods)).toEqual([['web-1'], ['web-1', 'web-2']]);
    expect(f.workflows.started).toHaveLength(2);
  });

  it('should plan again within the invocation when a claim it created disappears (failed launch)', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);
    f.cluster.pods = [pending('web-1')];
    let cleared = false;
    onSleep(f, (elapsed) => {
      if (elapsed >= 10_000 && !cleared) {
        cleared = true;
        f.cluster.claims.clear();
      }
    });

    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1' });

    // Assess
    expect(solves.map((s) => s.pods)).toEqual([['web-1'], ['web-1']]);
    expect(result.nodeClaims).toHaveLength(2);
  });

  it('should stop at once when no pod is pending', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);

    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1' });

    // Assess
    expect(result).toEqual({ skipped: false, rounds: 0, nodeClaims: [], unschedulable: 0, deferred: 0, clusterPods: 0 });
    expect(solves).toEqual([]);
    expect(await f.store.acquireLease('provisioner', 'someone-else', 60)).toBe(true);
  });

  it('should do nothing while another invocation holds the lease', async () => {
    // Prepare
    const f = fakes();
    const { planner, solves } = recordingPlanner(f);
    f.cluster.pods = [pending('web-1')];
    await f.store.acquireLease('provisioner', 'req-0', 120);

    // Act
    const result = await runProvisioner(f, planner, { holder: 'req-1' });

    // Assess
    expect(result.skipped).toBe(true);
    expect(solves).toEqual([]);
    expect(f.cluster.writes).toEqual([]);
  });

  it('should skip ICE-marked offerings when resolving instance types', async () => {
    // Prepare
    const f = fakes();
    const seen: string[] = [];
    const { planner } = recordingPlanner(f);
    const base = planner.schedulingInputFromSnapshot;
    planner.schedulingInputFromSnapshot = (s, types) => {
      for (const it of types.default) for (const o of it.offerings) if (!o.available) seen.push(`${it.name}/${o.capacityType}`);
      return base(s, types);
    };
    f.cluster.pods = [pending('web-1')];
    await f.store.markUnavailable({ instanceType: 'c5.large', zone: 'eu-west-1a', capacityType: 'spot' }, 180, 'InsufficientInstanceCapacity');

    // Act
    await runProvisioner(f, planner, { holder: 'req-1', once: true });

    // Assess
    expect(seen).toEqual(['c5.large/spot']);
  });
});

describe('nodeClaimName', () => {
  it('should derive the same name from the same pods and time, and a different one otherwise', () => {
    // Prepare
    const uids = ['b', 'a'];

    // Act
    const names = [
      nodeClaimName('default', uids, 1000),
      nodeClaimName('default', ['a', 'b'], 1000),
      nodeClaimName('default', uids, 2000),
      nodeClaimName('default', uids, 1000, 1),
    ];

    // Assess
    expect(names[0]).toMatch(/^default-[a-z0-9]{5}$/);
    expect(names[1]).toBe(names[0]);
    expect(new Set(names).size).toBe(3);
  });
});
