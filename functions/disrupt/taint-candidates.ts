/** TaintCandidates (disrupt): taints every candidate node `karpenter.sh/disrupted:NoSchedule`. */
import { taintCandidates, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput, unwrapExecution } from '../../shared/adapters/lambda/state-input';
import { DisruptionStateSchema } from '../disrupt/check-replacements-ready';

/** `{input, executionName}` from the machine: the nodes' `nodewright.io/disrupted-by` names this execution. */
export const createHandler = (deps: LifecycleDeps) => async (event: unknown) => {
  const { input, executionName } = unwrapExecution(event);
  return taintCandidates(deps, parseStateInput('taintCandidates', DisruptionStateSchema, input) as unknown as DisruptionState, executionName ? `disrupt/${executionName}` : undefined);
};

export const handler = deployedHandler('taintCandidates', createHandler);
