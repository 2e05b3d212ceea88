/** InitializeNode: marks the node initialized once Ready with startup taints gone; DeadlineExceededError after the deadline. */
import * as z from '../../shared/core/zod';
import { initializeNode, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { parseStateInput, StateFields } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({ nodeClaimName: StateFields.nodeClaimName, nodeName: StateFields.nodeName, deadlineMs: StateFields.deadlineMs });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>) => async (event: unknown) =>
  initializeNode(deps, parseStateInput('initializeNode', Input, event));

export const handler = deployedHandler('initializeNode', { cluster }, createHandler);
