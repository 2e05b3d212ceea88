/** LaunchReplacement (disrupt): creates one replacement claim and starts its `launch` execution. */
import { launchReplacement, LaunchReplacementInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler = (deps: Pick<LifecycleDeps, 'cluster' | 'log' | 'metrics' | 'workflows'>) => async (event: unknown) =>
  launchReplacement(deps, parseStateInput('launchReplacement', LaunchReplacementInput, event));

export const handler = deployedHandler('launchReplacement', { cluster, workflows }, createHandler);
