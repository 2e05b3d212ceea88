/** TaintNode: `karpenter.sh/disrupted:NoSchedule` + exclude-from-LB label; fixes the drain deadline. */
import { parseStateInput, TargetSchema, taintNode, unwrapExecution, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

/** `{input, executionName}` from the machine: the node's `nodewright.io/disrupted-by` names this execution. */
export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>) => async (event: unknown) => {
  const { input, executionName } = unwrapExecution(event);
  return taintNode(deps, parseStateInput('taintNode', TargetSchema, input), executionName ? `terminate/${executionName}` : undefined);
};

export const handler = deployedHandler('taintNode', { cluster }, createHandler);
