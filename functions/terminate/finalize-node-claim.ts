/** FinalizeNodeClaim: deletes the Node and the NodeClaim (finalizers removed). */
import { finalizeNodeClaim, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  finalizeNodeClaim(deps, parseStateInput('finalizeNodeClaim', TargetSchema, event) as TerminationTarget);

export const handler = deployedHandler('finalizeNodeClaim', createHandler);
