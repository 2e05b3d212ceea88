/** StartTerminations (disrupt): one `terminate` execution per candidate, named `<nodeclaim>-<disruptionId>`. */
import { startTerminations, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';
import { DisruptionStateSchema } from '../disrupt/check-replacements-ready';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  startTerminations(deps, parseStateInput('startTerminations', DisruptionStateSchema, event) as unknown as DisruptionState);

export const handler = deployedHandler('startTerminations', createHandler);
