/** ValidateDisruptInput: checks a `disrupt` execution's input (candidates exist) before any side effect. */
import { parseDisruptInput, prepareDisruption, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown): Promise<DisruptionState> =>
  prepareDisruption(deps, parseDisruptInput(event));

export const handler = deployedHandler('validateDisruptInput', createHandler);
