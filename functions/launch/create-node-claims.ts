/** CreateNodeClaims: "add capacity now" — claims from a NodePool, each launched by its own `launch` execution. */
import * as z from '../../shared/core/zod';
import { createClaimsFromPool, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({ nodePool: z.string().check(z.minLength(1)), count: z.number().check(z.int(), z.gte(1), z.lte(100)), executionName: z.string().check(z.minLength(1)) });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics' | 'store' | 'workflows'>) => async (event: unknown) => {
  const input = parseStateInput('createNodeClaims', Input, event);
  return createClaimsFromPool(deps, { nodePool: input.nodePool, count: input.count, seed: input.executionName });
};

export const handler = deployedHandler('createNodeClaims', { cloud, cluster, store, workflows }, createHandler);
