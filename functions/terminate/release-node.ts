/** ReleaseNode (terminate's compensation): untaint the node of a termination that failed for good; audit why. */
import { failureOf, parseStateInput, releaseNode, TargetSchema, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>) => async (event: unknown) =>
  releaseNode(deps, parseStateInput('releaseNode', TargetSchema, event), failureOf(event));

export const handler = deployedHandler('releaseNode', { cluster, store }, createHandler);
