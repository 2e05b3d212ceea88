/** TaintCandidates (disrupt): taints every candidate node `karpenter.sh/disrupted:NoSchedule`. */
import { taintCandidates, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';
import { DisruptionStateSchema } from '../provisioning/check-replacements-ready';

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  taintCandidates(deps, parseStateInput('taintCandidates', DisruptionStateSchema, event) as unknown as DisruptionState);

export const handler = deployedHandler('taintCandidates', createHandler);
