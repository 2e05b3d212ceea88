/** StartTerminations (disrupt): one `terminate` execution per candidate, named `<nodeclaim>-<disruptionId>`. */
import { DisruptionStateInput, parseStateInput, startTerminations, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'store' | 'workflows'>) => async (event: unknown) =>
  startTerminations(deps, parseStateInput('startTerminations', DisruptionStateInput, event));

export const handler = deployedHandler('startTerminations', { store, workflows }, createHandler);
