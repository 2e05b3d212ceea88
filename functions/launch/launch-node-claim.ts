/** LaunchNodeClaim: CloudProvider.create for the claim, then its status (Launched, providerID, capacity). */
import { ClaimDeadlineInput, launchNodeClaim, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) => {
  const input = parseStateInput('launchNodeClaim', ClaimDeadlineInput, event);
  return { ...(await launchNodeClaim(deps, input.nodeClaimName)), deadlineMs: input.deadlineMs };
};

export const handler = deployedHandler('launchNodeClaim', { cloud, cluster }, createHandler);
