/** LaunchReplacement (disrupt): creates one replacement claim and starts its `launch` execution. */
import * as z from '../../shared/core/zod';
import type { NodeClaim } from '../../shared/core/model/karpenter';
import { launchReplacement, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({
  nodeClaim: z.looseObject({ name: z.string().check(z.minLength(1)), nodePool: z.string().check(z.minLength(1)), spec: z.looseObject({}) }),
  disruptionId: z.string().check(z.minLength(1)),
  /** The disruption's reason (metrics: karpenter_nodeclaims_created_total{reason}). */
  reason: z.optional(z.string()),
});

export const createHandler = (deps: Pick<LifecycleDeps, 'cluster' | 'log' | 'metrics' | 'workflows'>) => async (event: unknown) => {
  const input = parseStateInput('launchReplacement', Input, event);
  return launchReplacement(deps, { nodeClaim: input.nodeClaim as unknown as NodeClaim, disruptionId: input.disruptionId, ...(input.reason ? { reason: input.reason } : {}) });
};

export const handler = deployedHandler('launchReplacement', { cluster, workflows }, createHandler);
