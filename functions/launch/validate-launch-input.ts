/** ValidateLaunchInput: checks a `launch` execution's input before any side effect. */
import { validateLaunchInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster'>) => (event: unknown) => validateLaunchInput(deps, event);

export const handler = deployedHandler('validateLaunchInput', { cluster }, createHandler);
