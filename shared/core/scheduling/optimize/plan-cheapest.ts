/**
 * The one planner: what `nodewright plan`, the deployed provisioner and interruption replacements all run.
 * Karpenter's scheduling pass (solve.ts) decides which pods need new capacity; the new claims are then re-packed
 * toward the cheapest fleet (repack.ts). The LP solver is a port, asked for only when a group is large enough to
 * need it (the adapter loads HiGHS' WASM then, so a small round starts as fast as without it); without one, every
 * group is packed by the heuristic.
 */
import type { LpSolver } from '../../ports/lp-solver';
import { solve } from '../solve';
import type { Plan, SchedulingInput } from '../types';
import { repackNeeds, repackPlan, type RepackOptions, type RepackReport } from './repack';

/** The LP solver, loaded on first call (undefined: none available, the heuristic packs every group). */
export type LpLoader = () => Promise<LpSolver | undefined>;

export interface CheapestPlan {
  plan: Plan;
  /** Per re-packed group: greedy and optimized $/h, the LP lower bound; absent when nothing was re-packable. */
  report?: RepackReport;
}

/** `greedy`: Karpenter's pass already run on this input (`plan` prints it), else it is run here. */
export async function planCheapest(input: SchedulingInput, loadLp: LpLoader, options: RepackOptions = {}, greedy = solve(input)): Promise<CheapestPlan> {
  const needs = repackNeeds(input, greedy);
  if (!needs.groups) return { plan: greedy };
  const lp = needs.lp ? await loadLp() : undefined;
  const { plan, report } = repackPlan(input, greedy, lp, options, needs);
  return { plan, report };
}
