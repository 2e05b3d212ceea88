/** MarkOfferingUnavailable: after InsufficientCapacityError, ICE-mark the offerings and delete the claim. */
import * as z from '../../shared/core/zod';
import { markOfferingUnavailable, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { parseStateInput, StateFields } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({ nodeClaimName: StateFields.nodeClaimName, error: z.optional(z.looseObject({ Error: z.optional(z.string()) })) });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>) => async (event: unknown) => {
  const input = parseStateInput('markOfferingUnavailable', Input, event);
  return markOfferingUnavailable(deps, input.nodeClaimName, input.error?.Error);
};

export const handler = deployedHandler('markOfferingUnavailable', { cluster, store }, createHandler);
