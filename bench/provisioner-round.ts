/**
 * `node --import tsx bench/provisioner-round.ts [nodes] [pending]` (add node's `--cpu-prof` for a profile): the pure
 * part of one provisioner round at issue #28's scale — provisionablePods over the snapshot, then the deployed planner
 * (schedulingInputFromSnapshot + planCheapest, HiGHS loaded on first need) — on N nodes × 10 running pods (bundled catalog, m5.2xlarge, 3 zones)
 * plus P pending pods of bench/catalog-suites' realistic mix (zone spread, anti-affinity, spot, arm64). Default
 * 5,000 nodes and 10,000 pending pods. Prints CPU ms per step. Not part of `npm test`.
 */
import { performance } from 'node:perf_hooks';
import { containerLp, deployedPlanner } from '../shared/adapters/compose/parts/planner';
import { provisionablePods } from '../shared/core/lifecycle/provisionable';
import { Label } from '../shared/core/model/labels';
import { bound, cluster, managed, pool, type Managed } from '../test/core/disruption/builders';
import { catalogTypes, deploymentPods, MIX } from './catalog-suites';

const nodes = Number(process.argv[2] ?? 5000);
const pendingCount = Number(process.argv[3] ?? 10_000);
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const types = catalogTypes();
const m5 = types.find((t) => t.name === 'm5.2xlarge')!;
const p = pool({ requirements: [{ key: Label.instanceGeneration, operator: 'Gt', values: ['4'] }] });
const ms: Managed[] = [];
const pods = [];
for (let i = 0; i < nodes; i++) {
  const m = managed(`ip-10-${Math.floor(i / 250)}-${i % 250}`, { pool: p, type: m5, zone: ZONES[i % 3] });
  ms.push(m);
  for (let j = 0; j < 10; j++) pods.push(bound(m, { name: `run-${i}-${j}`, cpu: '700m', memory: '2Gi', labels: { app: `run-${i % 40}` } }));
}
const pending = deploymentPods(MIX, pendingCount / MIX.reduce((n, d) => n + d.replicas, 0))
  .slice(0, pendingCount)
  .map((x) => ({ ...x, unschedulable: true }));
const snapshot = cluster({ pools: [p], nodes: ms, pods: [...pods, ...pending] });

const step = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
  const c = process.cpuUsage();
  const t = performance.now();
  const out = await f();
  const u = process.cpuUsage(c);
  console.log(`${name}: ${Math.round(performance.now() - t)} ms wall, ${Math.round((u.user + u.system) / 1000)} ms CPU`);
  return out;
};
const planner = deployedPlanner(containerLp(console));
const found = await step('provisionablePods', () => provisionablePods(snapshot));
const input = await step('schedulingInputFromSnapshot', () => planner.schedulingInputFromSnapshot(snapshot, { [p.name]: types }));
const plan = await step('planCheapest (HiGHS loaded on first need)', () => planner.solve(input));
console.log(
  `${nodes} nodes, ${pods.length} running + ${found.length} pending pods → ${plan.nodeClaims.length} new claims, ` +
    `${plan.existingPlacements.reduce((n, e) => n + e.pods.length, 0)} pods on existing nodes, ${plan.unschedulable.length} unschedulable; ` +
    `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
);
