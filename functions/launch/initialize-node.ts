/** InitializeNode: marks the node initialized once Ready with startup taints gone; DeadlineExceededError after the deadline. */
import { initializeNode, InitializeNodeInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>) => async (event: unknown) =>
  initializeNode(deps, parseStateInput('initializeNode', InitializeNodeInput, event));

export const handler = deployedHandler('initializeNode', { cluster }, createHandler);
