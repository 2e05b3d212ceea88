/** ValidateTerminateInput: checks a `terminate` execution's input and resolves its target, before any side effect. */
import { parseTerminateInput, resolveTerminationTarget, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler =
  (deps: Pick<LifecycleDeps, 'cluster'>) =>
  async (event: unknown): Promise<TerminationTarget> =>
    resolveTerminationTarget(deps, parseTerminateInput(event));

export const handler = deployedHandler('validateTerminateInput', { cluster }, createHandler);
