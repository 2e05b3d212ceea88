/**
 * The one planner (docs/scheduling.md): Karpenter's scheduling, then re-packed toward the cheapest fleet with the
 * code `nodewright plan` runs, HiGHS included. The solver is loaded per container, on the first group large enough
 * to need it (a round of a few pods never loads it); a container that cannot load it packs with the heuristic and says so.
 */
import type { Planner } from '../../../core/lifecycle';
import type { LifecycleLogger } from '../../../core/lifecycle/deps';
import type { LpSolver } from '../../../core/ports/lp-solver';
import { plannedClaimToNodeClaim, schedulingInputFromSnapshot } from '../../../core/provisioning/from-snapshot';
import { planCheapest, type LpLoader } from '../../../core/scheduling/optimize/plan-cheapest';
import type { RepackOptions } from '../../../core/scheduling/optimize/repack';
import { part } from '../base';

/** HiGHS for this container, loaded once on first call; undefined (logged once) when it cannot be loaded. */
export function containerLp(log: Pick<LifecycleLogger, 'warn'>): LpLoader {
  let loading: Promise<LpSolver | undefined> | undefined;
  return () =>
    (loading ??= import('../../lp/highs')
      .then((m) => m.HighsLpSolver.load())
      .catch((error: unknown) => {
        log.warn('could not load the LP solver; large groups are packed by the heuristic', { error });
        return undefined;
      }));
}

/** `options`: the re-packing's limits (tests lift the MIP's time limit, which otherwise makes a plan depend on the machine's speed). */
export function deployedPlanner(loadLp: LpLoader, options: RepackOptions = {}): Planner {
  return {
    schedulingInputFromSnapshot: (snapshot, instanceTypesByPool) => schedulingInputFromSnapshot(snapshot, instanceTypesByPool),
    solve: async (input) => (await planCheapest(input, loadLp, options)).plan,
    plannedClaimToNodeClaim,
  };
}

/** The container's LP loader (the provisioner's and the interruption function's planning share it). */
export const lp = part('lp', (b) => containerLp(b.log));

export const planner = part('planner', async (b) => deployedPlanner(await lp(b)));
