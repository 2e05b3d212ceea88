/** StartTerminations (disrupt): one `terminate` execution per candidate, named `<nodeclaim>-<disruptionId>`. */
import { DisruptionStateInput, startTerminations, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  startTerminations(deps, parseStateInput('startTerminations', DisruptionStateInput, event));

export const handler = deployedHandler('startTerminations', createHandler);
