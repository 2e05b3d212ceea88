/** Karpenter's scheduling, then re-packed toward the cheapest fleet (docs/scheduling.md). Pure core code. */
import type { Planner } from '../../../core/lifecycle';
import { plannedClaimToNodeClaim, schedulingInputFromSnapshot } from '../../../core/provisioning/from-snapshot';
import { solveCheapest } from '../../../core/scheduling/optimize/repack';
import { part } from '../base';

export const deployedPlanner: Planner = {
  schedulingInputFromSnapshot: (snapshot, instanceTypesByPool) => schedulingInputFromSnapshot(snapshot, instanceTypesByPool),
  solve: solveCheapest,
  plannedClaimToNodeClaim,
};

export const planner = part('planner', () => deployedPlanner);
