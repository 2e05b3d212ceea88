/** UntaintCandidates (disrupt rollback): untaint candidates and terminate replacements that were created. */
import { RollbackInput, untaintCandidates, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) => {
  const { state, error } = parseStateInput('untaintCandidates', RollbackInput, event);
  return untaintCandidates(deps, state, error);
};

export const handler = deployedHandler('untaintCandidates', createHandler);
