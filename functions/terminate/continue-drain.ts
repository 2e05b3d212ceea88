/** ContinueDrain: a drain past 2,000 passes continues in a fresh `terminate` execution (history limit). */
import { ExecutionInputInvalidError } from '../../shared/core/errors';
import { continueDrain, DrainingSchema, parseStateInput, unwrapExecution, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler = (deps: Pick<LifecycleDeps, 'log' | 'workflows'>) => async (event: unknown) => {
  const { input, executionName } = unwrapExecution(event);
  if (!executionName) throw new ExecutionInputInvalidError('continueDrain: input must be {input, executionName} from the state machine');
  return continueDrain(deps, parseStateInput('continueDrain', DrainingSchema, input), executionName);
};

export const handler = deployedHandler('continueDrain', { workflows }, createHandler);
