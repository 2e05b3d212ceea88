/**
 * `npm run bench -- storm`: issue #28's interruption storm on the simulator — bench/scenarios/interruption-storm-500.yaml
 * (500 spot nodes under `minAvailable: 90%`, 200 spot warnings within a minute) and, for comparison, the tested
 * size examples/scenarios/interruption-storm.yaml. Not part of `npm test` (the 500-node run takes many minutes).
 * Prints per scenario: wall and CPU time, peak RSS, pods lost, PDB violations, nodes drained before their reclaim,
 * the queue's outcome, and the interruption function's Kubernetes requests per message.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseScenario, runScenario } from '../shared/sim';

export interface StormRow {
  scenario: string;
  wallSeconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
  /** Most nodes at once. */
  nodes: number;
  warned: number;
  drainedBeforeReclaim: number;
  /** Longest warning → instance gone of a warned node (the reclaim comes at 120 s). */
  worstDrainSeconds: number;
  podsLost: number;
  pdbViolations: number;
  messages: number;
  invocations: number;
  deadLettered: number;
  kubeRequestsPerMessage: number;
}

const SCENARIOS = ['bench/scenarios/interruption-storm-500.yaml', 'examples/scenarios/interruption-storm.yaml'];

async function runOne(file: string): Promise<StormRow> {
  const scenario = parseScenario(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'), file);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 500);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const r = await runScenario(scenario);
    const cpu = process.cpuUsage(c0);
    const warned = r.nodes.filter((n) => n.interruptedAt !== undefined);
    const q = r.interruptionQueue;
    return {
      scenario: scenario.name,
      wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
      cpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10,
      peakRssMiB: Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20),
      nodes: Math.max(0, ...r.timeline.map((p) => p.nodes)),
      warned: warned.length,
      drainedBeforeReclaim: warned.filter((n) => n.terminatedAt !== undefined && n.terminatedAt - n.interruptedAt! < 120).length,
      worstDrainSeconds: Math.max(0, ...warned.map((n) => (n.terminatedAt ?? Infinity) - n.interruptedAt!)),
      podsLost: r.violations.podsLost,
      pdbViolations: r.violations.pdb,
      messages: q.handled,
      invocations: r.controller.lambda.functions.interruption?.invocations ?? 0,
      deadLettered: q.deadLettered + q.expired,
      kubeRequestsPerMessage: Math.round(((r.controller.lambda.functions.interruption?.kubeRequests ?? 0) / Math.max(1, q.handled)) * 100) / 100,
    };
  } finally {
    clearInterval(sampler);
  }
}

export async function suiteStorm(files = SCENARIOS): Promise<StormRow[]> {
  const rows: StormRow[] = [];
  for (const f of files) rows.push(await runOne(f));
  return rows;
}
