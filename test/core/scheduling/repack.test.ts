/**
 * Cost-optimal re-packing (issue #12 item 1): the greedy, Karpenter-faithful pass keeps adding pods to a claim
 * while some type still holds them all, which ends on one giant node priced as the cheapest type that holds
 * everything; re-packing the movable pods finds the cheaper fleet of smaller nodes, through the scheduler's own
 * checks, keeps zone-level pods in their zones and hostname-ruled pods one per node, and leaves pods it cannot
 * move (host ports, rules across kinds, limits) where the greedy pass put them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';
import { repackNeeds, repackPlan } from '../../../shared/core/scheduling/optimize/repack';
import { solve } from '../../../shared/core/scheduling/solve';
import type { Plan, SchedulingInput } from '../../../shared/core/scheduling/types';
import { instanceType, nodePool, pods } from '../../fixtures/builders';
import { Label } from '../../../shared/core/model/labels';

const cost = (p: Plan) => Math.round(p.nodeClaims.reduce((s, c) => s + c.price, 0) * 1e6) / 1e6;
// Small types are cheaper per CPU than the one big enough for everything (as in the real catalog's largest sizes).
const types = [
  instanceType({ name: 'small', cpu: '4', memory: '16Gi', price: 0.2 }),
  instanceType({ name: 'medium', cpu: '8', memory: '32Gi', price: 0.4 }),
  instanceType({ name: 'giant', cpu: '96', memory: '384Gi', price: 6 }),
];

describe('repackPlan', () => {
  let lp: HighsLpSolver;
  beforeAll(async () => {
    lp = await HighsLpSolver.create();
  });

  const input = (o: Partial<SchedulingInput> = {}): SchedulingInput => ({
    pods: pods(60, { cpu: '1', memory: '1Gi' }),
    nodePools: [nodePool()],
    instanceTypes: { default: types },
    existingNodes: [],
    daemonSets: [],
    ...o,
  });

  it("splits the greedy pass's one giant node into the cheapest fleet (LP and MIP)", () => {
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

  it('re-packs from the groups repackNeeds found for the same plan, and finds them again for another plan', () => {
    // Arrange
    const greedy = solve(input());
    const needs = repackNeeds(input(), greedy);
    const other = solve(input({ pods: pods(8, { cpu: '1', memory: '1Gi' }) }));
    // Act
    const reused = repackPlan(input(), greedy, lp, {}, needs);
    const fresh = repackPlan(input(), greedy, lp);
    const mismatched = repackPlan(input({ pods: other.nodeClaims.flatMap((c) => c.pods) }), other, lp, {}, needs);
    // Assess
    expect(needs).toMatchObject({ groups: true, lp: true });
    expect(cost(reused.plan)).toBe(cost(fresh.plan));
    expect(reused.report).toEqual(fresh.report);
    expect(mismatched.report.groups.map((g) => g.pods)).toEqual([8]);
  });

  it('does the same for a small group without the LP solver', () => {
    const small = input({ pods: pods(8, { cpu: '1', memory: '1Gi' }) });
    const greedy = solve(small);
    const { plan } = repackPlan(small, greedy, undefined);
    expect(cost(plan)).toBeLessThanOrEqual(cost(greedy));
    expect(cost(plan)).toBe(0.28); // 2 × small (spot) instead of one medium
  });

  const zoneSpread = [{ maxSkew: 1, topologyKey: Label.zone, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } } }];
  const zoneCounts = (p: Plan, app: string) =>
    Object.fromEntries(
      ['test-zone-1', 'test-zone-2', 'test-zone-3'].map((z) => [
        z,
        p.nodeClaims
          .filter((c) => c.zone === z)
          .flatMap((c) => c.pods)
          .filter((x) => x.labels.app === app).length,
      ]),
    );

  it('re-packs zone-spread pods within the zones the greedy pass gave them', () => {
    // Prepare: 90 one-CPU web pods spread over three zones; the greedy pass ends each zone on a giant node.
    const spread = input({ pods: pods(90, { cpu: '1', labels: { app: 'web' }, spread: zoneSpread }) });
    const greedy = solve(spread);
    // Act
    const { plan, report } = repackPlan(spread, greedy, lp);
    // Assess: cheaper, every pod still in its zone (30 / 30 / 30), every claim pinned to its zone.
    expect(report.groups).toEqual([expect.objectContaining({ kept: 'optimized', pods: 90 })]);
    expect(cost(plan)).toBeLessThan(cost(greedy));
    expect(zoneCounts(plan, 'web')).toEqual(zoneCounts(greedy, 'web'));
    expect(zoneCounts(plan, 'web')).toEqual({ 'test-zone-1': 30, 'test-zone-2': 30, 'test-zone-3': 30 });
    expect(plan.nodeClaims.every((c) => c.zone !== null)).toBe(true);
  });

  it('moves pods no zone rule counts across zones, and keeps the ones a spread selects', () => {
    // Prepare: 30 spread web pods and 30 workers the greedy pass put beside them in their zones.
    const mixed = input({
      pods: [...pods(30, { cpu: '1', labels: { app: 'web' }, spread: zoneSpread }), ...pods(30, { cpu: '1', labels: { app: 'worker' } })],
    });
    const greedy = solve(mixed);
    // Act
    const { plan } = repackPlan(mixed, greedy, lp);
    // Assess
    expect(cost(plan)).toBeLessThan(cost(greedy));
    expect(zoneCounts(plan, 'web')).toEqual(zoneCounts(greedy, 'web'));
    expect(plan.nodeClaims.flatMap((c) => c.pods)).toHaveLength(60);
  });

  it('puts at most one pod with hostname anti-affinity on each new node', () => {
    // Prepare: 12 pods that repel each other per node, beside 48 free ones.
    const anti = { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: { app: 'auth' } } }] } };
    const mixed = input({ pods: [...pods(12, { cpu: '1', labels: { app: 'auth' }, affinity: anti }), ...pods(48, { cpu: '1', labels: { app: 'worker' } })] });
    const greedy = solve(mixed);
    // Act
    const { plan, report } = repackPlan(mixed, greedy, lp);
    // Assess
    expect(report.groups[0].kept).toBe('optimized');
    expect(cost(plan)).toBeLessThan(cost(greedy));
    for (const c of plan.nodeClaims) expect(c.pods.filter((x) => x.labels.app === 'auth').length).toBeLessThanOrEqual(1);
    expect(plan.nodeClaims.flatMap((c) => c.pods)).toHaveLength(60);
  });

  it('leaves a pool as the greedy pass planned it when a hostname rule selects pods of another kind', () => {
    // Prepare: auth repels every pod labelled tier=backend, which workers are too.
    const anti = { podAntiAffinity: { required: [{ topologyKey: Label.hostname, labelSelector: { matchLabels: { tier: 'backend' } } }] } };
    const mixed = input({
      pods: [
        ...pods(4, { cpu: '1', labels: { app: 'auth', tier: 'backend' }, affinity: anti }),
        ...pods(50, { cpu: '1', labels: { app: 'worker', tier: 'backend' } }),
      ],
    });
    const greedy = solve(mixed);
    // Act
    const { plan, report } = repackPlan(mixed, greedy, lp);
    // Assess
    expect(report.groups).toEqual([]);
    expect(plan).toBe(greedy);
  });

  it('leaves pods with host ports, and pools whose limits a new packing could pass, as they are', () => {
    const ported = input({ pods: pods(30, { cpu: '1', hostPorts: [8080] }) });
    const greedy = solve(ported);
    expect(repackPlan(ported, greedy, lp).plan).toBe(greedy);
    const limited = input({ nodePools: [nodePool({ limits: { nodes: '1' } })] });
    const g2 = solve(limited);
    const r = repackPlan(limited, g2, lp);
    expect(r.plan.nodeClaims).toEqual(g2.nodeClaims);
    expect(r.report.groups[0].why).toMatch(/limits/);
  });

  it('re-packs a pool with a cpu limit, each new claim allowed only types no larger than the one it is priced at', () => {
    // Prepare: the seed walkthrough's pool has `limits: {cpu: 1000}`; every small claim could still launch as a giant
    const limited = input({ nodePools: [nodePool({ limits: { cpu: '1000' } })] });
    const greedy = solve(limited);
    // Act
    const { plan, report } = repackPlan(limited, greedy, lp);
    // Assess
    expect(report.groups[0].kept).toBe('optimized');
    expect(cost(plan)).toBeLessThan(cost(greedy));
    const charged = plan.nodeClaims.reduce((s, c) => s + Math.max(...c.instanceTypes.map((t) => t.capacity.cpu ?? 0)), 0);
    expect(charged).toBeLessThanOrEqual(greedy.nodeClaims.reduce((s, c) => s + Math.max(...c.instanceTypes.map((t) => t.capacity.cpu ?? 0)), 0));
    for (const c of plan.nodeClaims) {
      expect(c.instanceTypes.every((t) => (t.capacity.cpu ?? 0) <= (c.instanceTypes[0].capacity.cpu ?? 0))).toBe(true);
      const named = c.requirements.find((r) => r.key === Label.instanceType)?.values;
      if (named) expect(named).toEqual(c.instanceTypes.map((t) => t.name));
    }
  });

  it('keeps a pod as the greedy pass relaxed it: a preferred zone nobody offers does not stop the re-packing', () => {
    // Prepare: the pods prefer a zone no type is offered in; the greedy pass dropped the preference.
    const prefer = {
      nodeAffinity: { preferred: [{ weight: 10, preference: { matchExpressions: [{ key: Label.zone, operator: 'In' as const, values: ['test-zone-9'] }] } }] },
    };
    const relaxed = input({ pods: pods(60, { cpu: '1', memory: '1Gi', affinity: prefer }) });
    const greedy = solve(relaxed);
    // Act
    const { plan, report } = repackPlan(relaxed, greedy, lp);
    // Assess
    expect(report.groups[0].kept).toBe('optimized');
    expect(cost(plan)).toBe(2.1);
  });

  it('is what the deployed provisioner plans for a small group (the heuristic: HiGHS is never loaded for it)', async () => {
    const { containerLp, deployedPlanner } = await import('../../../shared/adapters/compose/parts/planner');
    const i = input({ pods: pods(12, { cpu: '1', memory: '1Gi' }) });
    let loaded = 0;
    const lp = containerLp({ warn: () => undefined });
    const plan = await deployedPlanner(() => ((loaded += 1), lp())).solve(i);
    expect(loaded).toBe(0);
    expect(plan).toEqual(repackPlan(i, solve(i), undefined).plan);
  });
});
