/**
 * `npm run bench -- deployed-fleet` (issue #29): the fleet a deployed nodewright launches against the LP lower
 * bound. Per mix, the seed walkthrough's NodePool (limits cpu 1000, consolidation held off) and two Deployments
 * scaled up 7 s apart (two provisioning rounds), run through the production handlers in the simulator for 90 s:
 * the fleet's $/h then (launched and in flight) and the pods still pending; beside it, what `nodewright plan`
 * plans for all the pods at once (the MIP given 20 s) and the LP's lower bound. Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { optimizeResult, runPlan } from '../cli/plan';
import { parseManifestFiles } from '../shared/core/model/manifests';
import { parseScenario, runScenario } from '../shared/sim';

/** [deployment, replicas, cpu, memory] × 2: the first arrives at 10 s, the second at 17 s. */
const MIXES: Record<string, [string, number, string, string][]> = {
  'big + medium': [
    ['web', 120, '2', '8Gi'],
    ['api', 100, '2500m', '3Gi'],
  ],
  'walkthrough inflate + cpu-heavy batch': [
    ['inflate', 200, '1', '3Gi'],
    ['batch', 60, '3', '1Gi'],
  ],
  'small services + memory-heavy cache': [
    ['svc', 150, '700m', '2560Mi'],
    ['cache', 50, '1500m', '6Gi'],
  ],
};

const WALKTHROUGH = readFileSync(fileURLToPath(new URL('../examples/scenarios/walkthrough.yaml', import.meta.url)), 'utf8');
const between = (from: string, to: string) => WALKTHROUGH.slice(WALKTHROUGH.indexOf(from), WALKTHROUGH.indexOf(to));
/** The walkthrough's default NodePool and EC2NodeClass (two-space indented, as in a scenario's `objects`), nothing expiring or consolidated within the run. */
const POOL = between('  apiVersion: karpenter.sh/v1', '  ---\n  apiVersion: karpenter.sh/v1\n  kind: NodePool\n  metadata:\n    name: spot')
  .replace('expireAfter: 20m', 'expireAfter: 720h')
  .replace('consolidateAfter: 1m', 'consolidateAfter: 30m');
const NODE_CLASS = between('  apiVersion: karpenter.k8s.aws/v1', '  ---\n  apiVersion: apps/v1');

const deployment = ([name, replicas, cpu, memory]: [string, number, string, string], indent: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: {name: ${name}}`,
    'spec:',
    `  replicas: ${replicas}`,
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    '    spec:',
    `      containers: [{name: c, image: pause, resources: {requests: {cpu: "${cpu}", memory: ${memory}}}}]`,
  ]
    .map((l) => `${indent}${l}\n`)
    .join('');

async function deployed(mix: [string, number, string, string][]): Promise<{ perHour: number; pending: number; nodes: number }> {
  const objects = [POOL, NODE_CLASS, ...mix.map((d) => deployment([d[0], 0, d[2], d[3]], '  '))].join('  ---\n');
  const events = mix.map(([name, replicas], i) => `  - {at: ${10 + 7 * i}s, scale: {deployment: ${name}, replicas: ${replicas}}}`).join('\n');
  const yaml = `name: deployed-fleet\nseed: 7\nregion: us-east-1\nzones: [us-east-1a, us-east-1b, us-east-1c]\nduration: 90s\nsettings: {nodeStartup: 35s}\nobjects: |\n${objects}events:\n${events}\n`;
  const r = await runScenario(parseScenario(yaml, 'deployed-fleet.yaml'));
  return { perHour: r.cost.perHourAtEnd, pending: r.final.pendingPods, nodes: r.final.nodes };
}

async function planned(mix: [string, number, string, string][]): Promise<{ greedy: number; plan: number; bound: number }> {
  const unindent = (s: string) => s.replace(/^ {2}/gm, '');
  const text = [unindent(POOL), unindent(NODE_CLASS), ...mix.map((d) => deployment(d, ''))].join('---\n');
  const { result } = runPlan(parseManifestFiles([{ text, file: 'mix.yaml' }]), { region: 'us-east-1' });
  const cost = () => result.plan.nodeClaims.reduce((s, c) => s + c.price, 0);
  const greedy = cost();
  const report = await optimizeResult(result, { mipSeconds: 20 });
  return { greedy, plan: cost(), bound: report?.groups.reduce((s, g) => s + g.lowerBoundPerHour, 0) ?? greedy };
}

export async function suiteDeployedFleet(): Promise<Record<string, string | number>[]> {
  const rows = [];
  for (const [name, mix] of Object.entries(MIXES)) {
    const d = await deployed(mix);
    const p = await planned(mix);
    const ratio = (x: number) => Math.round((x / p.bound) * 1000) / 1000;
    rows.push({
      mix: name,
      pods: mix.reduce((n, m) => n + m[1], 0),
      'LP bound $/h': Math.round(p.bound * 1000) / 1000,
      'greedy ÷ bound': ratio(p.greedy),
      'plan ÷ bound': ratio(p.plan),
      'deployed ÷ bound (90 s)': ratio(d.perHour),
      'deployed nodes': d.nodes,
      'pending at 90 s': d.pending,
    });
  }
  return rows;
}
