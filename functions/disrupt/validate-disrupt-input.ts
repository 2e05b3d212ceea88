/**
 * ValidateDisruptInput: checks a `disrupt` execution's input against the cluster (candidates exist, are
 * managed and not being deleted; replacements fit their NodePool) and names the replacements from the
 * disruption id, before any side effect. The state machine passes `{input, executionName}`; a bare input
 * (a direct call) is accepted too.
 */
import { parseDisruptInput, prepareDisruption, unwrapExecution, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler =
  (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster'>) =>
  async (event: unknown): Promise<DisruptionState> => {
    const { input, executionName } = unwrapExecution(event);
    return prepareDisruption(deps, parseDisruptInput(input), executionName);
  };

export const handler = deployedHandler('validateDisruptInput', { cloud, cluster }, createHandler);
