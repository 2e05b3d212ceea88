/** Times one solve (best of `repeats`) and summarises the plan. */
import { performance } from 'node:perf_hooks';
import { solve } from '../shared/core/scheduling/solve';
import type { Plan, SchedulingInput } from '../shared/core/scheduling/types';

export interface BenchRow {
  suite: string;
  pods: number;
  ms: number;
  cpuMs: number;
  podsPerSec: number;
  nodes: number;
  pricePerHour: number;
  pending: number;
}

export function timeSolve(suite: string, input: SchedulingInput, repeats = 1): { row: BenchRow; plan: Plan } {
  let best = Infinity;
  let bestCpu = Infinity;
  let plan!: Plan;
  for (let i = 0; i < repeats; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    plan = solve(input);
    best = Math.min(best, performance.now() - t0);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
  }
  const scheduled = plan.nodeClaims.reduce((n, c) => n + c.pods.length, 0) + plan.existingPlacements.reduce((n, e) => n + e.pods.length, 0);
  return {
    plan,
    row: {
      suite,
      pods: input.pods.length,
      ms: Math.round(best),
      cpuMs: Math.round(bestCpu),
      podsPerSec: Math.round(input.pods.length / (best / 1000)),
      nodes: plan.nodeClaims.length,
      pricePerHour: Math.round(plan.nodeClaims.reduce((s, c) => s + c.price, 0) * 1000) / 1000,
      pending: input.pods.length - scheduled,
    },
  };
}
