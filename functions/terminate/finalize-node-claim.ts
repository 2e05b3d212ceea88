/** FinalizeNodeClaim: deletes the Node and the NodeClaim (finalizers removed). */
import { finalizeNodeClaim, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics' | 'store'>) => async (event: unknown) =>
  finalizeNodeClaim(deps, parseStateInput('finalizeNodeClaim', TargetSchema, event) as TerminationTarget);

export const handler = deployedHandler('finalizeNodeClaim', { cluster, store }, createHandler);
