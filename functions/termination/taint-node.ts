/** TaintNode: `karpenter.sh/disrupted:NoSchedule` + exclude-from-LB label; fixes the drain deadline. */
import { taintNode, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  taintNode(deps, parseStateInput('taintNode', TargetSchema, event) as TerminationTarget);

export const handler = deployedHandler('taintNode', createHandler);
