/** UntaintCandidates (disrupt rollback): untaint candidates and terminate replacements that were created. */
import { parseStateInput, RollbackInput, untaintCandidates, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store' | 'workflows'>) => async (event: unknown) => {
  const { state, error } = parseStateInput('untaintCandidates', RollbackInput, event);
  return untaintCandidates(deps, state, error);
};

export const handler = deployedHandler('untaintCandidates', { cluster, store, workflows }, createHandler);
