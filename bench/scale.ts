/**
 * Issue #28's scale scenario (examples/scenarios/scale-5k.yaml) at several sizes: its fleet, replicas and storm scaled
 * to N nodes (resizeScenario), each size in a process of its own as `nodewright simulate` would run it. Per size: wall
 * and CPU seconds and peak RSS of the simulator, what the run kept (pods lost, PDB violations, orphans, leaked
 * claims, pods pending at the end), launch latency, the controller's bill, and per function (simulate's `functions`)
 * the largest modelled peak memory and duration against its size and timeout, and Kubernetes requests per minute.
 * `npm run bench -- scale [nodes …]` (default 500 2000 5000); `npm run bench -- scale-steady [nodes …]`: a steady hour
 * at that size, nodewright's own bill from 15 minutes in (steadyScenarioText). Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MONTH_SECONDS, PRICES } from '../shared/sim/runtime/prices';

const SCENARIO = fileURLToPath(new URL('../examples/scenarios/scale-5k.yaml', import.meta.url));
const FULL_SIZE = 5000;

type Row = Record<string, number | string>;

/** One size, in this process (the child of suiteScale): its row and the per-function table. */
async function one(nodes: number): Promise<{ row: Row; functions: Row[] }> {
  const { parseScenario, resizeScenario, runScenario } = await import('../shared/sim');
  const start = performance.now();
  const scenario = parseScenario(resizeScenario(readFileSync(SCENARIO, 'utf8'), nodes / FULL_SIZE), `scale-${nodes}.yaml`);
  const burstAt = scenario.events[0]?.at;
  const r = await runScenario(scenario);
  const usage = process.resourceUsage();
  const row: Row = {
    nodes,
    'wall s': Math.round((performance.now() - start) / 100) / 10,
    'CPU s': Math.round((usage.userCPUTime + usage.systemCPUTime) / 1e5) / 10,
    'peak RSS MiB': Math.round(usage.maxRSS / 1024),
    'pods lost': r.violations.podsLost,
    'PDB violations': r.violations.pdb,
    orphans: r.final.orphanInstances,
    'leaked claims': r.final.leakedNodeClaims,
    'pending at end': r.final.pendingPods,
    'launch p50 s': r.pods.launchLatencySecondsP50,
    'launch p99 s': r.pods.launchLatencySecondsP99,
    // The burst is the scenario's first event: its pods' latency is what issue #28 bounds (p99 ≤ 15 s).
    'burst launch p50 / p99 s': ((w) => (w ? `${w.p50} / ${w.p99} (${w.pods} pods)` : 'none'))(r.pods.launchLatencyAfterEvents.find((w) => w.at === burstAt)),
    'launch p99 after each event': r.pods.launchLatencyAfterEvents.map((w) => `${w.at}s: ${w.p99} (${w.pods})`).join(', '),
    'nodes at end': r.final.nodes,
    'controller $/month': r.controller.usdPerMonth.total,
  };
  const functions = Object.entries(r.functions).map(([key, f]) => ({
    function: key,
    invocations: f.invocations,
    'peak MB / size': `${f.peakMemoryMb} / ${f.memorySizeMb}`,
    'memory %': Math.round(f.memoryRatio * 100),
    'longest s / timeout': `${f.maxDurationSeconds} / ${f.timeoutSeconds}`,
    'duration %': Math.round(f.durationRatio * 100),
    'charged compute s': f.computeSeconds,
    'kube requests/min': f.kubeRequestsPerMinute,
    'kube MB/min': Math.round(f.kubeBytesReceivedPerMinute / 1e5) / 10,
    'out of memory': f.outOfMemory,
    'timed out': f.timedOut,
  }));
  row['max memory %'] = Math.max(0, ...functions.map((f) => f['memory %']));
  // The controller watches until its planned hand-over (~14 of its 15 minutes) by design: what counts for it is that it
  // never runs into its timeout, which the 'timed out' column says for every function.
  row['max duration % (controller aside)'] = Math.max(0, ...functions.filter((f) => f.function !== 'controller').map((f) => f['duration %']));
  row['timed out'] = functions.reduce((n, f) => n + f['timed out'], 0);
  row['out of memory'] = functions.reduce((n, f) => n + f['out of memory'], 0);
  return { row, functions };
}

/**
 * A steady hour at that size, billed from 15 minutes in (`settings.meterFrom`): nodewright's own bill for a cluster
 * that is not changing much (the scale run's `controller $/month` extrapolates its busy quarter hour as a month).
 * The pools keep to one size (2xlarge, as many users pin node sizes; open pools re-pack these pods onto 16xlarge nodes,
 * a tenth as many) and the fleet is the one nodewright would leave: the web pool on its cheapest 2xlarge
 * (m6a.2xlarge, what `plan` picks) and full (11 pods a node), so consolidation has nothing to do until 1 % more web
 * pods come at 23m17s and go at 41m09s (new nodes, then their consolidation); every count scaled with the size.
 */
export function steadyScenarioText(text: string): string {
  const steady = text
    .replace('{nodePool: general, instanceType: m6i.2xlarge', '{nodePool: general, instanceType: m6a.2xlarge')
    .replace('replicas: 40000', 'replicas: 44000')
    .replaceAll('values: ["5"]}', 'values: ["5"]}\n          - {key: karpenter.k8s.aws/instance-size, operator: In, values: [2xlarge]}')
    .replace(/^duration: 15m$/m, 'duration: 1h')
    .replace(/^settings:$/m, 'settings:\n  meterFrom: 15m')
    .replace(
      /\nevents:\n[\s\S]*$/,
      '\nevents:\n  - {at: 23m17s, scale: {deployment: web, replicas: 44440}}\n  - {at: 41m09s, scale: {deployment: web, replicas: 44000}}\n',
    );
  if (!steady.includes('m6a.2xlarge') || !steady.includes('replicas: 44440') || !steady.includes('duration: 1h') || !steady.includes('values: [2xlarge]'))
    throw new Error('scale-5k.yaml changed: update steadyScenarioText');
  return steady;
}

async function steady(nodes: number): Promise<{ row: Row; functions: Row[] }> {
  const { parseScenario, resizeScenario, runScenario } = await import('../shared/sim');
  const start = performance.now();
  const parsed = parseScenario(resizeScenario(steadyScenarioText(readFileSync(SCENARIO, 'utf8')), nodes / FULL_SIZE), `steady-${nodes}.yaml`);
  const r = await runScenario(parsed);
  const usage = process.resourceUsage();
  const usd = r.controller.usdPerMonth;
  const row: Row = {
    nodes,
    'wall s': Math.round((performance.now() - start) / 100) / 10,
    'peak RSS MiB': Math.round(usage.maxRSS / 1024),
    'pods lost': r.violations.podsLost,
    orphans: r.final.orphanInstances,
    'nodes at end': r.final.nodes,
    disruptions: r.disruptions.length,
    'nodewright $/month': usd.total,
    'Lambda compute $': usd.lambdaCompute,
    'Step Functions $': usd.stepFunctions,
    'DynamoDB $': usd.dynamodb,
    'logs $': usd.logs,
    'other $': Math.round((usd.total - usd.lambdaCompute - usd.stepFunctions - usd.dynamodb - usd.logs) * 100) / 100,
  };
  const functions = Object.entries(r.controller.lambda.functions)
    .sort((a, b) => b[1].gbSeconds - a[1].gbSeconds)
    .slice(0, 6)
    .map(([key, f]) => ({
      function: key,
      invocations: f.invocations,
      'GB-s (45 min)': Math.round(f.gbSeconds),
      'memory MB': f.memoryMB,
      // Its compute over the metered 45 minutes, as a month, at the bill's own price (docs/controller-cost.md).
      '$/month':
        Math.round(
          f.gbSeconds * PRICES.lambdaGbSecond[f.architecture as keyof typeof PRICES.lambdaGbSecond] * (MONTH_SECONDS / r.controller.periodSeconds) * 100,
        ) / 100,
    }));
  return { row, functions };
}

export function suiteScale(sizes = [500, 2000, 5000], mode: '--one' | '--steady' = '--one'): { rows: Row[]; functions: Record<number, Row[]> } {
  const rows: Row[] = [];
  const functions: Record<number, Row[]> = {};
  for (const nodes of sizes) {
    const start = performance.now();
    const child = spawnSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', fileURLToPath(import.meta.url), mode, String(nodes)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const line = child.stdout.trim().split('\n').pop() ?? '';
    if (child.status !== 0 || !line.startsWith('{')) throw new Error(`scale ${nodes} failed (exit ${child.status}): ${child.stderr.slice(-3000)}`);
    const out = JSON.parse(line) as { row: Row; functions: Row[] };
    rows.push({ ...out.row, 'process wall s': Math.round((performance.now() - start) / 100) / 10 });
    functions[nodes] = out.functions;
  }
  return { rows, functions };
}

if (import.meta.url === `file://${process.argv[1]}` && (process.argv[2] === '--one' || process.argv[2] === '--steady')) {
  const out = await (process.argv[2] === '--one' ? one : steady)(Number(process.argv[3]));
  // A simulation leaves loopback servers and SDK timers behind: exit once the row is written.
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
}
