/** LaunchNodeClaim: CloudProvider.create for the claim, then its status (Launched, providerID, capacity). */
import * as z from '../../shared/core/zod';
import { launchNodeClaim, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { parseStateInput, StateFields } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({ nodeClaimName: StateFields.nodeClaimName, deadlineMs: StateFields.deadlineMs });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) => {
  const input = parseStateInput('launchNodeClaim', Input, event);
  const launched = await launchNodeClaim(deps, input.nodeClaimName);
  return { ...launched, deadlineMs: input.deadlineMs };
};

export const handler = deployedHandler('launchNodeClaim', { cloud, cluster }, createHandler);
