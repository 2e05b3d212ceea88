/**
 * `npm run bench -- consolidation [nodes …]`: one disruption pass's compute (computeDisruption, as the disruption
 * function runs it) over N nodes × 10 pods from the bundled catalog — the worst case for consolidation: nothing to
 * delete, so every candidate is simulated. A spot fleet with Karpenter's default SpotToSpotConsolidation=false: every
 * pod fits on no other node, each candidate's pods need a new node, and the replacement is spot → rejected after the
 * simulation. Each size runs in a process of its own: ms per pass, simulations, peak RSS and its growth in the pass.
 * Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { computeDisruption } from '../shared/core/disruption';
import { Label } from '../shared/core/model/labels';
import { bound, cluster, input, managed, pool, type Managed } from '../test/core/disruption/builders';
import { catalogTypes } from './catalog-suites';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

function passInput(nodes: number) {
  const types = catalogTypes();
  const m5 = types.find((t) => t.name === 'm5.2xlarge')!;
  const p = pool({
    requirements: [
      { key: Label.capacityType, operator: 'In', values: ['spot'] },
      { key: Label.instanceGeneration, operator: 'Gt', values: ['4'] },
    ],
    budgets: [{ nodes: '10%' }],
  });
  const ms: Managed[] = [];
  const pods = [];
  for (let i = 0; i < nodes; i++) {
    const m = managed(`ip-10-${Math.floor(i / 250)}-${i % 250}`, { pool: p, type: m5, zone: ZONES[i % 3], capacityType: 'spot' });
    ms.push(m);
    // 10 pods of 780m / 2.8 GiB: 7.8 of the node's 7.91 vCPUs — no pod fits on another node.
    for (let j = 0; j < 10; j++) pods.push(bound(m, { name: `app-${i}-${j}`, cpu: '780m', memory: '2800Mi', labels: { app: `app-${i % 40}` } }));
  }
  return input(cluster({ pools: [p], nodes: ms, pods }), types);
}

function one(nodes: number) {
  const inp = passInput(nodes);
  const rssBefore = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const d = computeDisruption(inp);
  const ms = performance.now() - t0;
  const spent = process.cpuUsage(cpu);
  const usage = process.resourceUsage();
  const rejected = d.audit.filter((a) => a.detail.method === 'single-node').length;
  return {
    nodes,
    pods: inp.snapshot.pods.length,
    'ms per pass': Math.round(ms),
    'CPU ms': Math.round((spent.user + spent.system) / 1000),
    'single-node verdicts': rejected,
    command: d.command ? `${d.command.method} ${d.command.action}` : 'none',
    'peak RSS MiB': Math.round(usage.maxRSS / 1024),
    'RSS growth in pass MiB': Math.max(0, Math.round((usage.maxRSS * 1024 - rssBefore) / 2 ** 20)),
  };
}

export function suiteConsolidation(sizes = [500, 2000, 5000]) {
  return sizes.map((nodes) => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', String(nodes)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const line = child.stdout.trim().split('\n').pop() ?? '';
    if (child.status !== 0 || !line.startsWith('{'))
      throw new Error(`consolidation ${nodes} nodes failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
    return JSON.parse(line) as ReturnType<typeof one>;
  });
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--one') {
  console.log(JSON.stringify(one(Number(process.argv[3]))));
}
