/** ValidateTerminateInput: checks a `terminate` execution's input and resolves its target, before any side effect. */
import { parseTerminateInput, resolveTerminationTarget, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown): Promise<TerminationTarget> =>
  resolveTerminationTarget(deps, parseTerminateInput(event));

export const handler = deployedHandler('validateTerminateInput', createHandler);
