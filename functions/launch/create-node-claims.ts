/** CreateNodeClaims: "add capacity now" — claims from a NodePool, each launched by its own `launch` execution. */
import { createClaimsFromPool, CreateNodeClaimsInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler =
  (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics' | 'store' | 'workflows'>) => async (event: unknown) => {
    const input = parseStateInput('createNodeClaims', CreateNodeClaimsInput, event);
    return createClaimsFromPool(deps, { nodePool: input.nodePool, count: input.count, seed: input.executionName });
  };

export const handler = deployedHandler('createNodeClaims', { cloud, cluster, store, workflows }, createHandler);
