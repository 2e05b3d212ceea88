/** MarkOfferingUnavailable: after InsufficientCapacityError, ICE-mark the offerings and delete the claim. */
import { markOfferingUnavailable, MarkOfferingUnavailableInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>) => async (event: unknown) => {
  const input = parseStateInput('markOfferingUnavailable', MarkOfferingUnavailableInput, event);
  return markOfferingUnavailable(deps, input.nodeClaimName, input.error?.Error);
};

export const handler = deployedHandler('markOfferingUnavailable', { cluster, store }, createHandler);
