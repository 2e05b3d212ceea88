/** TerminateInstance: CloudProvider.delete of the claim's instance (already gone = success; foreign = refused). */
import { terminateInstance, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  terminateInstance(deps, parseStateInput('terminateInstance', TargetSchema, event) as TerminationTarget);

export const handler = deployedHandler('terminateInstance', createHandler);
