/**
 * `node --import tsx bench/cost.ts`: how cheap the plans are (issue #12 item 4). Not part of `npm test`.
 *
 * For each mix on the bundled catalog (us-east-1, three zones): the Karpenter-style greedy plan ($/h), the
 * plan nodewright prints (greedy + re-packing with the default budgets), the best integer solution found
 * offline (re-packing with a large pricing budget and a 20 s MIP), and a lower bound — Farley's bound from the
 * column-generation LP with exact pricing — over the pods re-packing may move, with the pods that zone-level
 * rules count in the zones the greedy pass gave them. In these mixes that split is forced: every zone-spread
 * deployment has maxSkew 1 and a replica count divisible by the three zones, which every type is offered in, so
 * any valid fleet has the same split and the bound holds for all of them. Pods re-packing may not move (host
 * ports, volumes, hostname pod affinity) stay at their greedy price; plan/LB is over the movable part.
 */
import os from 'node:os';
import { HighsLpSolver } from '../shared/adapters/lp/highs';
import type { DaemonSet, NodeSelectorRequirement } from '../shared/core/model/kube';
import { Label } from '../shared/core/model/labels';
import { parseResourceList } from '../shared/core/model/resources';
import { repackPlan } from '../shared/core/scheduling/optimize/repack';
import { solve } from '../shared/core/scheduling/solve';
import type { Plan, SchedulingInput } from '../shared/core/scheduling/types';
import { catalogTypes, deploymentPods, MIX } from './catalog-suites';
import { nodePoolFor } from './pools';
import { epochMs } from '../shared/core/time';

type Mix = Parameters<typeof deploymentPods>[0];
const gen = (values: string[]) => [{ key: Label.instanceGeneration, operator: 'Gt' as const, values }];
const onDemand = [{ key: Label.capacityType, operator: 'In' as const, values: ['on-demand'] }, ...gen(['4'])];
const spotAndOd = [{ key: Label.capacityType, operator: 'In' as const, values: ['spot', 'on-demand'] }, ...gen(['4'])];

/** The bench (b) mix (web tiers with zone spread, APIs with anti-affinity, workers, batch on spot, caches…). */
const BENCH_B: Mix = MIX;
const WALKTHROUGH = [
  { key: Label.capacityType, operator: 'In' as const, values: ['on-demand'] },
  { key: Label.arch, operator: 'In' as const, values: ['amd64'] },
  { key: Label.instanceCategory, operator: 'In' as const, values: ['c', 'm', 'r'] },
  ...gen(['2']),
];

const daemon = (name: string, cpu: string, memory: string): DaemonSet => ({
  namespace: 'kube-system',
  name,
  template: {
    uid: `ds/${name}`,
    namespace: 'kube-system',
    name,
    labels: {},
    annotations: {},
    creationTimestamp: epochMs(0),
    phase: 'Pending',
    requests: parseResourceList({ cpu, memory }),
    nodeSelector: {},
    tolerations: [],
    topologySpreadConstraints: [],
    hostPorts: [],
    volumeClaims: [],
    priority: 0,
    terminationGracePeriodSeconds: 30,
    owner: { kind: 'DaemonSet', name },
  },
});

const MIXES: { name: string; mix: Mix; scale?: number; requirements?: NodeSelectorRequirement[]; daemonSets?: DaemonSet[] }[] = [
  { name: 'web pods', mix: [{ name: 'web', replicas: 200, cpu: '250m', memory: '512Mi' }], requirements: onDemand },
  {
    name: 'cpu-heavy',
    mix: [
      { name: 'encode', replicas: 60, cpu: '3', memory: '2Gi' },
      { name: 'api', replicas: 40, cpu: '1', memory: '1Gi' },
    ],
    requirements: onDemand,
  },
  {
    name: 'memory-heavy',
    mix: [
      { name: 'cache', replicas: 50, cpu: '500m', memory: '12Gi' },
      { name: 'jvm', replicas: 30, cpu: '1', memory: '6Gi' },
    ],
    requirements: onDemand,
  },
  {
    name: 'a few huge + many small',
    mix: [
      { name: 'db', replicas: 3, cpu: '60', memory: '200Gi' },
      { name: 'small', replicas: 300, cpu: '200m', memory: '256Mi' },
    ],
    requirements: onDemand,
  },
  {
    name: 'zone spread',
    mix: [
      { name: 'web', replicas: 150, cpu: '500m', memory: '1Gi', spread: 'zone' },
      { name: 'worker', replicas: 60, cpu: '1', memory: '2Gi' },
    ],
    requirements: onDemand,
  },
  {
    name: 'hostname anti-affinity',
    mix: [
      { name: 'auth', replicas: 24, cpu: '500m', memory: '768Mi', anti: true },
      { name: 'worker', replicas: 80, cpu: '1', memory: '2Gi' },
    ],
    requirements: onDemand,
  },
  {
    name: 'spot + on-demand',
    mix: [
      { name: 'worker', replicas: 120, cpu: '1', memory: '2Gi' },
      { name: 'batch', replicas: 40, cpu: '2', memory: '4Gi', spot: true },
    ],
    requirements: spotAndOd,
  },
  {
    name: 'open pool (any type)',
    mix: [
      { name: 'worker', replicas: 100, cpu: '1', memory: '3Gi' },
      { name: 'cron', replicas: 100, cpu: '100m', memory: '128Mi' },
    ],
    requirements: [],
  },
  { name: 'bench (b) mix 1x', mix: BENCH_B, requirements: spotAndOd },
  { name: 'bench (b) mix 4x', mix: BENCH_B, scale: 4, requirements: spotAndOd },
  {
    name: 'heavy DaemonSets',
    mix: [{ name: 'worker', replicas: 120, cpu: '500m', memory: '1Gi' }],
    requirements: onDemand,
    daemonSets: [daemon('log-agent', '1', '2Gi'), daemon('security', '500m', '1Gi')],
  },
  // The seed walkthrough's pool (c/m/r, on-demand, generation > 2, amd64) and its `inflate` pods (1 CPU) at the
  // replica counts it holds still: the fleet its consolidation ends on should be within 5 % of the cheapest.
  { name: 'walkthrough inflate ×5', mix: [{ name: 'inflate', replicas: 5, cpu: '1', memory: '0' }], requirements: WALKTHROUGH },
  { name: 'walkthrough inflate ×12', mix: [{ name: 'inflate', replicas: 12, cpu: '1', memory: '0' }], requirements: WALKTHROUGH },
  {
    name: 'arm64 + amd64',
    mix: [
      { name: 'arm', replicas: 80, cpu: '1', memory: '2Gi', arch: 'arm64' },
      { name: 'x86', replicas: 80, cpu: '1', memory: '2Gi', arch: 'amd64' },
    ],
    requirements: onDemand,
  },
];

const cost = (p: Plan) => p.nodeClaims.reduce((s, c) => s + c.price, 0);
const r3 = (n: number) => Math.round(n * 1000) / 1000;

export async function measure() {
  const lp = await HighsLpSolver.create();
  const types = catalogTypes();
  const rows = [];
  for (const m of MIXES) {
    const input: SchedulingInput = {
      pods: deploymentPods(m.mix, m.scale ?? 1),
      nodePools: [nodePoolFor('default', m.requirements ?? onDemand)],
      instanceTypes: { default: types },
      existingNodes: [],
      daemonSets: m.daemonSets ?? [],
    };
    const greedy = solve(input);
    const t0 = performance.now();
    const planned = repackPlan(input, greedy, lp);
    const ms = performance.now() - t0;
    const thorough = { mipSeconds: 20, maxRounds: 200, lpFrom: 2, pricingBudget: 1_000_000 };
    const best = repackPlan(input, greedy, lp, thorough);
    const movable = best.report.groups.reduce((s, g) => s + g.pods, 0);
    const lb = best.report.groups.reduce((s, g) => s + g.lowerBoundPerHour, 0);
    const movedGreedy = best.report.groups.reduce((s, g) => s + g.greedyPerHour, 0);
    const fixed = cost(greedy) - movedGreedy; // claims with constrained pods, at their greedy price
    const planMovable = cost(planned.plan) - fixed;
    const bestMovable = cost(best.plan) - fixed;
    rows.push({
      mix: m.name,
      pods: input.pods.length,
      movable,
      'greedy $/h': r3(cost(greedy)),
      'plan $/h': r3(cost(planned.plan)),
      'best int $/h': r3(Math.min(cost(best.plan), cost(planned.plan))),
      'LB (movable) $/h': r3(lb),
      'plan/LB': movable ? r3(planMovable / lb) : '-',
      'best/LB': movable ? r3(Math.min(bestMovable, planMovable) / lb) : '-',
      'plan/greedy': r3(cost(planned.plan) / cost(greedy)),
      'repack ms': Math.round(ms),
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  const rows = await measure();
  console.table(rows);
  // The walkthrough rows answer another question (its fleet against the cheapest valid one): a handful of pods
  // leave the LP bound far below any integer fleet, so they are compared with the best integer solution.
  for (const r of rows.filter((x) => x.mix.startsWith('walkthrough')))
    console.log(
      `${r.mix}: plan ${r['plan $/h']} vs best integer ${r['best int $/h']} (${r['plan $/h'] <= r['best int $/h'] * 1.05 ? 'within' : 'NOT within'} 5 %)`,
    );
  const ratios = rows
    .filter((r) => !r.mix.startsWith('walkthrough'))
    .map((r) => r['plan/LB'])
    .filter((x): x is number => typeof x === 'number')
    .sort((a, b) => a - b);
  console.log(
    `plan/LB over the movable pods: median ${ratios[Math.floor(ratios.length / 2)]}, worst ${ratios[ratios.length - 1]}; never dearer than greedy: ${rows.every((r) => r['plan/greedy'] <= 1)}`,
  );
}
