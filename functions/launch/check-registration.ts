/** CheckRegistration: one look for the claim's Node; registers it (labels, taints, Registered) and tags its instance when it is there. */
import { checkRegistration, ClaimDeadlineInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { instanceTagger } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

type Deps = Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics'> & { cloud: Pick<LifecycleDeps['cloud'], 'tagInstance'> };

export const createHandler = (deps: Deps) => async (event: unknown) => checkRegistration(deps, parseStateInput('checkRegistration', ClaimDeadlineInput, event));

export const handler = deployedHandler('checkRegistration', { cloud: instanceTagger, cluster }, createHandler);
