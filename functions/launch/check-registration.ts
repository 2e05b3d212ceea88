/** CheckRegistration: one look for the claim's Node; registers it (labels, taints, Registered) when it is there. */
import { checkRegistration, ClaimDeadlineInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) =>
  checkRegistration(deps, parseStateInput('checkRegistration', ClaimDeadlineInput, event));

export const handler = deployedHandler('checkRegistration', { cluster }, createHandler);
