/** TerminateInstance: CloudProvider.delete of the claim's instance (already gone = success; foreign = refused). */
import { parseStateInput, TargetSchema, terminateInstance, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) =>
  terminateInstance(deps, parseStateInput('terminateInstance', TargetSchema, event));

export const handler = deployedHandler('terminateInstance', { cloud, cluster }, createHandler);
