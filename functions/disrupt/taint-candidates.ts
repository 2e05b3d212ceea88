/** TaintCandidates (disrupt): taints every candidate node `karpenter.sh/disrupted:NoSchedule`. */
import { DisruptionStateInput, parseStateInput, taintCandidates, unwrapExecution, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

/** `{input, executionName}` from the machine: the nodes' `nodewright.io/disrupted-by` names this execution. */
export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>) => async (event: unknown) => {
  const { input, executionName } = unwrapExecution(event);
  return taintCandidates(deps, parseStateInput('taintCandidates', DisruptionStateInput, input), executionName ? `disrupt/${executionName}` : undefined);
};

export const handler = deployedHandler('taintCandidates', { cluster }, createHandler);
