/** The real Task handlers of every state machine, by function key, built on the given ports (for the local runner). */
import type { LifecycleDeps, Planner } from '../../core/lifecycle';
import { createHandler as validateLaunchInput } from '../../../functions/launch/validate-launch-input';
import { createHandler as validateTerminateInput } from '../../../functions/terminate/validate-terminate-input';
import { createHandler as validateDisruptInput } from '../../../functions/disrupt/validate-disrupt-input';
import { createHandler as createNodeClaims } from '../../../functions/launch/create-node-claims';
import { createHandler as launchNodeClaim } from '../../../functions/launch/launch-node-claim';
import { createHandler as markOfferingUnavailable } from '../../../functions/launch/mark-offering-unavailable';
import { createHandler as checkRegistration } from '../../../functions/launch/check-registration';
import { createHandler as initializeNode } from '../../../functions/launch/initialize-node';
import { createHandler as launchReplacement } from '../../../functions/disrupt/launch-replacement';
import { createHandler as checkReplacementsReady } from '../../../functions/disrupt/check-replacements-ready';
import { createHandler as provisioner } from '../../../functions/provisioner/provisioner';
import { createHandler as taintNode } from '../../../functions/terminate/taint-node';
import { createHandler as evictPods } from '../../../functions/terminate/evict-pods';
import { createHandler as continueDrain } from '../../../functions/terminate/continue-drain';
import { createHandler as terminateInstance } from '../../../functions/terminate/terminate-instance';
import { createHandler as finalizeNodeClaim } from '../../../functions/terminate/finalize-node-claim';
import { createHandler as taintCandidates } from '../../../functions/disrupt/taint-candidates';
import { createHandler as startTerminations } from '../../../functions/disrupt/start-terminations';
import { createHandler as untaintCandidates } from '../../../functions/disrupt/untaint-candidates';
import { createHandler as releaseNode } from '../../../functions/terminate/release-node';
import type { LocalHandler } from './runner';

export function createLocalHandlers(deps: LifecycleDeps & { planner?: Planner }): Record<string, LocalHandler> {
  const handlers: Record<string, LocalHandler> = {
    validateLaunchInput: validateLaunchInput(deps),
    validateTerminateInput: validateTerminateInput(deps),
    validateDisruptInput: validateDisruptInput(deps),
    createNodeClaims: createNodeClaims(deps),
    launchNodeClaim: launchNodeClaim(deps),
    markOfferingUnavailable: markOfferingUnavailable(deps),
    checkRegistration: checkRegistration(deps),
    initializeNode: initializeNode(deps),
    launchReplacement: launchReplacement(deps),
    checkReplacementsReady: checkReplacementsReady(deps),
    taintNode: taintNode(deps),
    evictPods: evictPods(deps),
    continueDrain: continueDrain(deps),
    terminateInstance: terminateInstance(deps),
    finalizeNodeClaim: finalizeNodeClaim(deps),
    taintCandidates: taintCandidates(deps),
    startTerminations: startTerminations(deps),
    untaintCandidates: untaintCandidates(deps),
    releaseNode: releaseNode(deps),
  };
  if (deps.planner) {
    const run = provisioner({ ...deps, planner: deps.planner }, { budgetMs: 1 });
    handlers.provisioner = (event) => run(event);
  }
  return handlers;
}
