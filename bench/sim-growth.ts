/**
 * Simulator growth: examples/scenarios/steady-100-nodes.yaml (one pod per node, hostname anti-affinity, eight scale
 * events in four hours) with its Deployment at N replicas instead of 100 — N nodes. Each size runs in a process of
 * its own, as `nodewright simulate` would: wall seconds, CPU seconds, peak RSS (the process's maxRSS).
 * `npm run bench -- sim [sizes …]` (default 25 50 100 200). Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCENARIO = fileURLToPath(new URL('../examples/scenarios/steady-100-nodes.yaml', import.meta.url));

/** steady-100-nodes.yaml at `nodes` nodes: every replica count shifted by nodes − 100 (the events keep their +1…+4). */
function steadyScenario(nodes: number): string {
  return readFileSync(SCENARIO, 'utf8')
    .replace(/^name: steady-100-nodes$/m, `name: steady-${nodes}-nodes`)
    .replace(/replicas: (\d+)/g, (_, r: string) => `replicas: ${Number(r) - 100 + nodes}`);
}

export interface SimGrowthRow {
  nodes: number;
  'wall s': number;
  'CPU s': number;
  'peak RSS MiB': number;
  launched: number;
  'cost $': number;
}

/** One size, in this process (the child of simGrowth): its row. */
async function one(nodes: number): Promise<Omit<SimGrowthRow, 'wall s'>> {
  const { parseScenario, runScenario } = await import('../shared/sim');
  const run = await runScenario(parseScenario(steadyScenario(nodes), `steady-${nodes}-nodes.yaml`));
  const usage = process.resourceUsage();
  return {
    nodes,
    'CPU s': Math.round((usage.userCPUTime + usage.systemCPUTime) / 1e5) / 10,
    'peak RSS MiB': Math.round(usage.maxRSS / 1024),
    launched: run.nodes.length,
    'cost $': run.cost.total,
  };
}

export function simGrowth(sizes = [25, 50, 100, 200]): SimGrowthRow[] {
  return sizes.map((nodes) => {
    const start = performance.now();
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', String(nodes)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const wall = Math.round((performance.now() - start) / 100) / 10;
    const line = child.stdout.trim().split('\n').pop() ?? '';
    if (child.status !== 0 || !line.startsWith('{')) throw new Error(`steady-${nodes}-nodes failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
    const row = JSON.parse(line) as Omit<SimGrowthRow, 'wall s'>;
    return { nodes: row.nodes, 'wall s': wall, 'CPU s': row['CPU s'], 'peak RSS MiB': row['peak RSS MiB'], launched: row.launched, 'cost $': row['cost $'] };
  });
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--one') {
  const row = await one(Number(process.argv[3]));
  // A simulation leaves loopback servers and SDK timers behind: exit once the row is written.
  process.stdout.write(`${JSON.stringify(row)}\n`, () => process.exit(0));
}
