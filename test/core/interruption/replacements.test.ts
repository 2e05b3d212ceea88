import { describe, expect, it } from 'vitest';
import { planInterruptionReplacements } from '../../../shared/core/interruption/replacements';
import { checkReplacementsReady, prepareDisruption, type DisruptionState } from '../../../shared/core/lifecycle';
import { fakes, instanceType, node, nodeClaim, pod } from '../../fakes/lifecycle';
import { epochMs } from '../../../shared/core/time';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';

const NODE = 'ip-10-0-0-1';

function interruptedCluster() {
  const f = fakes();
  f.cluster.claims.set(
    'default-aaaaa',
    nodeClaim('default-aaaaa', { nodeName: NODE, conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: epochMs(0) }] }),
  );
  f.cluster.nodes.set(NODE, node(NODE, { taints: [], labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/initialized': 'true' } }));
  f.cluster.pods = [1, 2, 3].map((i) => pod(`web-${i}`, { nodeName: NODE }));
  f.cluster.pods.push(pod('daemon', { nodeName: NODE, owner: { kind: 'DaemonSet', name: 'ds' } }));
  return f;
}

describe('planInterruptionReplacements', () => {
  it('should plan new capacity for every pod of the interrupted node, and nothing for its DaemonSet pod', async () => {
    // Prepare
    const f = interruptedCluster();
    const snapshot = await f.cluster.snapshot();
    // Act
    const plan = await planInterruptionReplacements(
      snapshot,
      { default: [instanceType('c5.large', 0.03)] },
      'default-aaaaa',
      'event-1',
      epochMs(Date.UTC(2026, 0, 1)),
    );
    // Assess
    expect(plan.nodeName).toBe(NODE);
    expect(plan.moving).toBe(3);
    expect(plan.replacements).toHaveLength(1);
    expect(plan.replacements[0].finalizers).toContain('karpenter.sh/termination');
    expect(plan.unschedulable).toEqual([]);
  });

  it('should plan the replacements of a large node as the provisioner plans, re-packed with the LP toward the cheapest fleet', async () => {
    // Prepare: 60 pods of half a CPU; a 32-CPU type holds them all, but costs more per CPU than the 2-CPU one
    const f = interruptedCluster();
    f.cluster.pods = Array.from({ length: 60 }, (_, i) => pod(`web-${i}`, { nodeName: NODE }));
    const small = instanceType('c5.large', 0.03);
    const giant = { ...instanceType('c5.8xlarge', 0.8), capacity: { cpu: 32_000, memory: 128 * 1024 ** 3, pods: 234 } };
    giant.allocatable = { cpu: 31_000, memory: 120 * 1024 ** 3, pods: 234 };
    const types = { default: [small, giant] };
    let loads = 0;
    const lp = await HighsLpSolver.create();
    // Act
    const plan = await planInterruptionReplacements(await f.cluster.snapshot(), types, 'default-aaaaa', 'event-1', epochMs(0), {
      loadLp: async () => ((loads += 1), lp),
    });
    // Assess: every pod has a replacement; the small type's fleet, not one giant
    expect(loads).toBe(1);
    expect(plan.moving).toBe(60);
    expect(plan.unschedulable).toEqual([]);
    expect(plan.replacements).toHaveLength(20); // three pods per c5.large (1,930m allocatable), not two giants
  });

  it('should name the replacements the same for a duplicate of the same event, and differently for another event', async () => {
    // Prepare
    const snapshot = await interruptedCluster().cluster.snapshot();
    const types = { default: [instanceType('c5.large', 0.03)] };
    // Act
    const a = await planInterruptionReplacements(snapshot, types, 'default-aaaaa', 'event-1', epochMs(1000));
    const b = await planInterruptionReplacements(snapshot, types, 'default-aaaaa', 'event-1', epochMs(1000));
    const c = await planInterruptionReplacements(snapshot, types, 'default-aaaaa', 'event-2', epochMs(1000));
    // Assess
    expect(a.replacements.map((r) => r.name)).toEqual(b.replacements.map((r) => r.name));
    expect(a.replacements[0].name).not.toBe(c.replacements[0].name);
  });

  it('should plan nothing when the pods fit on another node', async () => {
    // Prepare
    const f = interruptedCluster();
    f.cluster.nodes.set(
      'ip-10-0-0-2',
      node('ip-10-0-0-2', {
        taints: [],
        capacity: { cpu: 8000, pods: 110 },
        allocatable: { cpu: 8000, memory: 32 * 1024 ** 3, pods: 110 },
        labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/initialized': 'true' },
      }),
    );
    // Act
    const plan = await planInterruptionReplacements(
      await f.cluster.snapshot(),
      { default: [instanceType('c5.large', 0.03)] },
      'default-aaaaa',
      'e',
      epochMs(0),
    );
    // Assess
    expect(plan.moving).toBe(3);
    expect(plan.replacements).toEqual([]);
  });
});

describe('the disrupt workflow in interruption mode', () => {
  it('should poll every 5 s and use the interruption drain deadline', async () => {
    // Prepare
    const f = interruptedCluster();
    // Act
    const state = await prepareDisruption(f, {
      reason: 'SpotInterruption',
      candidates: [{ nodeClaimName: 'default-aaaaa' }],
      replacements: [],
      interruption: { kind: 'SpotInterruption', drainBy: f.clock.now() + 60_000 },
    });
    // Assess
    expect(state.pollSeconds).toBe(5);
    expect(state.deadlineMs).toBe(f.clock.now() + 60_000);
  });

  it('should check its candidates by name, without reading the cluster, and name a missing one', async () => {
    // Prepare
    const f = interruptedCluster();
    const input = { reason: 'SpotInterruption', replacements: [], interruption: { kind: 'SpotInterruption' as const, drainBy: f.clock.now() + 60_000 } };
    // Act
    const state = await prepareDisruption(f, { ...input, candidates: [{ nodeClaimName: 'default-aaaaa' }] });
    const missing = await prepareDisruption(f, { ...input, candidates: [{ nodeClaimName: 'default-zzzzz' }] }).catch((e: Error) => e.message);
    // Assess
    expect(state.candidates).toEqual([{ nodeClaimName: 'default-aaaaa', nodeName: 'ip-10-0-0-1' }]);
    expect(missing).toMatch(/candidates: nodeclaim "default-zzzzz" does not exist/);
    expect(f.cluster.snapshotCalls).toBe(0);
  });

  it('should start draining when a replacement failed or the deadline passed, where a disruption would roll back', async () => {
    // Prepare
    const f = interruptedCluster();
    const base = {
      reason: 'SpotInterruption',
      candidates: [{ nodeClaimName: 'default-aaaaa' }],
      replacements: [nodeClaim('default-gone1')] as unknown as DisruptionState['replacements'],
      disruptionId: 'x',
      pollSeconds: 5,
    };
    f.cluster.claims.set('default-slow1', nodeClaim('default-slow1'));
    const late = { ...base, replacements: [nodeClaim('default-slow1')] as unknown as DisruptionState['replacements'], deadlineMs: epochMs(f.clock.now() - 1) };
    // Act
    const gone = await checkReplacementsReady(f, {
      ...base,
      deadlineMs: epochMs(f.clock.now() + 60_000),
      interruption: { kind: 'SpotInterruption', drainBy: 0 },
    });
    const pastDeadline = await checkReplacementsReady(f, { ...late, interruption: { kind: 'SpotInterruption', drainBy: 0 } });
    const waiting = await checkReplacementsReady(f, {
      ...late,
      deadlineMs: epochMs(f.clock.now() + 1000),
      interruption: { kind: 'SpotInterruption', drainBy: 0 },
    });
    // Assess
    expect(gone.ready).toBe(true);
    expect(pastDeadline.ready).toBe(true);
    expect(waiting.ready).toBe(false);
    await expect(checkReplacementsReady(f, { ...base, deadlineMs: epochMs(f.clock.now() + 60_000) })).rejects.toThrow(/is gone/);
    expect(f.log.messages()).toContain('draining interrupted node before its replacements are ready');
  });
});
