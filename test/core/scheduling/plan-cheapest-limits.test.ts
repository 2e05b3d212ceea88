/**
 * A NodePool near its limits (issue #29): Karpenter's pass charges each new claim as the largest type it could
 * launch as, so with types up to 96 CPUs a pool limited to 100 CPUs opens two claims and turns the other
 * one-per-node pods away, though they need 4 CPUs each. The planner plans those pods again, charged as the
 * re-packed claims can launch, and re-packs the passes together.
 */
import { describe, expect, it } from 'vitest';
import { planCheapest } from '../../../shared/core/scheduling/optimize/plan-cheapest';
import { solve } from '../../../shared/core/scheduling/solve';
import type { SchedulingInput } from '../../../shared/core/scheduling/types';
import { instanceType, nodePool, pods } from '../../fixtures/builders';

const types = [
  instanceType({ name: 'small', cpu: '4', memory: '16Gi', price: 0.2 }),
  instanceType({ name: 'medium', cpu: '8', memory: '32Gi', price: 0.4 }),
  instanceType({ name: 'giant', cpu: '96', memory: '384Gi', price: 6 }),
];
const onePerNode = {
  labels: { app: 'ingress' },
  affinity: { podAntiAffinity: { required: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'ingress' } } }] } },
};

const input = (limitCpu: string, count = 12, cpu = '3'): SchedulingInput => ({
  pods: pods(count, { cpu, memory: '4Gi', ...onePerNode }),
  nodePools: [nodePool({ limits: { cpu: limitCpu } })],
  instanceTypes: { default: types },
  existingNodes: [],
  daemonSets: [],
});
const noLp = async () => undefined;

describe('planning under NodePool limits', () => {
  it('should plan every one-per-node pod the limits allow, where the greedy pass alone turns most away', async () => {
    // Prepare: 12 pods of 3 CPUs, one per node; a 100-CPU limit holds twelve 4-CPU nodes (48 CPUs)
    const greedy = solve(input('100'));

    // Act
    const { plan } = await planCheapest(input('100'), noLp);

    // Assess: Karpenter's pass plans two claims (one charged 96 CPUs, then one that fits the 4 left), the planner
    // all twelve on small nodes
    expect(greedy.nodeClaims).toHaveLength(2);
    expect(greedy.unschedulable).toHaveLength(10);
    expect(plan.unschedulable).toEqual([]);
    expect(plan.nodeClaims).toHaveLength(12);
    expect(plan.nodeClaims.every((c) => c.instanceTypes[0].name === 'small')).toBe(true);
    // whatever each launches as, the pool stays within its limit
    expect(plan.nodeClaims.reduce((s, c) => s + Math.max(...c.instanceTypes.map((t) => t.capacity.cpu)), 0)).toBeLessThanOrEqual(100_000);
  });

  it('should still stop at the limit: no claim beyond what the limit can hold whatever launches', async () => {
    // Act: room for five 4-CPU nodes under a 20-CPU limit
    const { plan } = await planCheapest(input('20'), noLp);

    // Assess
    const charged = plan.nodeClaims.reduce((s, c) => s + Math.max(...c.instanceTypes.map((t) => t.capacity.cpu)), 0);
    expect(charged).toBeLessThanOrEqual(20_000);
    expect(plan.nodeClaims.length + plan.unschedulable.length).toBe(12);
    expect(plan.unschedulable.every((u) => /limits/.test(u.reason))).toBe(true);
  });

  it('should plan pods turned away because the types the limits leave are too small, over as many passes as place pods', async () => {
    // Prepare: 30 pods of 6 CPUs, one per node (30 medium nodes: 240 CPUs under a 300-CPU limit). Karpenter's pass
    // charges three claims 96 CPUs each, then only types of 12 CPUs or fewer remain, then only `small`, too small.
    const greedy = solve(input('300', 30, '6'));

    // Act
    const { plan } = await planCheapest(input('300', 30, '6'), noLp);

    // Assess: the greedy pass says why (the limits, not the catalog); the planner plans all thirty
    expect(greedy.unschedulable.length).toBeGreaterThan(20);
    expect(greedy.unschedulable[0].reason).toContain("no instance type has enough cpu within the nodepool's remaining limits");
    expect(plan.unschedulable).toEqual([]);
    expect(plan.nodeClaims).toHaveLength(30);
    expect(plan.nodeClaims.reduce((s, c) => s + Math.max(...c.instanceTypes.map((t) => t.capacity.cpu)), 0)).toBeLessThanOrEqual(300_000);
  });
});
