/** TerminateInstance: CloudProvider.delete of the claim's instance (already gone = success; foreign = refused). */
import { terminateInstance, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: Pick<LifecycleDeps, 'cloud' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) =>
  terminateInstance(deps, parseStateInput('terminateInstance', TargetSchema, event) as TerminationTarget);

export const handler = deployedHandler('terminateInstance', { cloud, cluster }, createHandler);
