/** FinalizeNodeClaim: deletes the Node and the NodeClaim (finalizers removed). */
import { finalizeNodeClaim, parseStateInput, TargetSchema, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics' | 'store'>) => async (event: unknown) =>
  finalizeNodeClaim(deps, parseStateInput('finalizeNodeClaim', TargetSchema, event));

export const handler = deployedHandler('finalizeNodeClaim', { cluster, store }, createHandler);
