/** ContinueDrain: a drain past 2,000 passes continues in a fresh `terminate` execution (history limit). */
import { continueDrain, type DrainingTarget, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { DrainingSchema, parseStateInput, unwrapExecution } from '../../shared/adapters/lambda/state-input';
import { ExecutionInputInvalidError } from '../../shared/core/errors';

export const createHandler = (deps: Pick<LifecycleDeps, 'log' | 'workflows'>) => async (event: unknown) => {
  const { input, executionName } = unwrapExecution(event);
  if (!executionName) throw new ExecutionInputInvalidError('continueDrain: input must be {input, executionName} from the state machine');
  return continueDrain(deps, parseStateInput('continueDrain', DrainingSchema, input) as DrainingTarget, executionName);
};

export const handler = deployedHandler('continueDrain', { workflows }, createHandler);
