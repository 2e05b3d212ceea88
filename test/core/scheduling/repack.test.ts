/**
 * Cost-optimal re-packing (issue #12 item 1): the greedy, Karpenter-faithful pass keeps adding pods to a claim
 * while some type still holds them all, which ends on one giant node priced as the cheapest type that holds
 * everything; re-packing the movable pods finds the cheaper fleet of smaller nodes, through the scheduler's own
 * checks, and leaves pods with placement constraints where the greedy pass put them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';
import { repackPlan, solveCheapest } from '../../../shared/core/scheduling/optimize/repack';
import { solve } from '../../../shared/core/scheduling/solve';
import type { Plan, SchedulingInput } from '../../../shared/core/scheduling/types';
import { instanceType, nodePool, pods } from '../../fixtures/builders';

const cost = (p: Plan) => Math.round(p.nodeClaims.reduce((s, c) => s + c.price, 0) * 1e6) / 1e6;
// Small types are cheaper per CPU than the one big enough for everything (as in the real catalog's largest sizes).
const types = [
  instanceType({ name: 'small', cpu: '4', memory: '16Gi', price: 0.2 }),
  instanceType({ name: 'medium', cpu: '8', memory: '32Gi', price: 0.4 }),
  instanceType({ name: 'giant', cpu: '96', memory: '384Gi', price: 6 }),
];

describe('repackPlan', () => {
  let lp: HighsLpSolver;
  beforeAll(async () => { lp = await HighsLpSolver.create(); });

  const input = (o: Partial<SchedulingInput> = {}): SchedulingInput => ({
    pods: pods(60, { cpu: '1', memory: '1Gi' }), nodePools: [nodePool()], instanceTypes: { default: types }, existingNodes: [], daemonSets: [], ...o,
  });

  it('splits the greedy pass\'s one giant node into the cheapest fleet (LP and MIP)', () => {
    const greedy = solve(input());
    expect(greedy.nodeClaims.map((c) => c.instanceTypes[0].name)).toEqual(['giant']);
    const { plan, report } = repackPlan(input(), greedy, lp);
    expect(cost(greedy)).toBe(4.2); // giant, spot at 70 % of $6
    expect(cost(plan)).toBe(2.1); // 15 × small, spot at 70 % of $0.20, 4 × 1-CPU pods each
    expect(plan.nodeClaims.flatMap((c) => c.pods)).toHaveLength(60);
    expect(report.groups).toEqual([expect.objectContaining({ kept: 'optimized' })]);
    expect(report.groups[0].lowerBoundPerHour).toBeLessThanOrEqual(2.1 + 1e-9);
    expect(report.groups[0].lowerBoundPerHour).toBeGreaterThan(2.0);
  });

  it('does the same for a small group without the LP solver', () => {
    const small = input({ pods: pods(8, { cpu: '1', memory: '1Gi' }) });
    const greedy = solve(small);
    const { plan } = repackPlan(small, greedy, undefined);
    expect(cost(plan)).toBeLessThanOrEqual(cost(greedy));
    expect(cost(plan)).toBe(0.28); // 2 × small (spot) instead of one medium
  });

  it('leaves pods with placement constraints and pools whose limits a new packing could pass as they are', () => {
    const spread = pods(30, { cpu: '1', labels: { app: 'web' }, spread: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }] });
    const constrained = input({ pods: spread });
    const greedy = solve(constrained);
    expect(repackPlan(constrained, greedy, lp).plan).toBe(greedy);
    const limited = input({ nodePools: [nodePool({ limits: { nodes: '1' } })] });
    const g2 = solve(limited);
    const r = repackPlan(limited, g2, lp);
    expect(r.plan.nodeClaims).toEqual(g2.nodeClaims);
    expect(r.report.groups[0].why).toMatch(/limits/);
  });

  it('is what the deployed provisioner plans (the solver-free heuristic: no WASM in the Lambda bundles)', async () => {
    const { planner } = await import('../../../shared/adapters/dependencies');
    const i = input();
    const plan = await planner.solve(i);
    expect(cost(plan)).toBeLessThan(cost(solve(i)));
    expect(plan).toEqual(solveCheapest(i));
  });
});
