/** CheckReplacementsReady (disrupt): are all replacement claims initialized? DeadlineExceededError past the deadline. */
import { z } from 'zod';
import { checkReplacementsReady, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';

export const DisruptionStateSchema = z.looseObject({
  reason: z.string().min(1),
  candidates: z.array(z.looseObject({ nodeClaimName: z.string().min(1), nodeName: z.string().min(1).optional() })).min(1),
  replacements: z.array(z.looseObject({ name: z.string().min(1) })),
  disruptionId: z.string().min(1),
  deadlineMs: z.number().int().nonnegative(),
});

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) =>
  checkReplacementsReady(deps, parseStateInput('checkReplacementsReady', DisruptionStateSchema, event) as unknown as DisruptionState);

export const handler = deployedHandler('checkReplacementsReady', createHandler);
