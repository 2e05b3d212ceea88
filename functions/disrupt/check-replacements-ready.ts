/** CheckReplacementsReady (disrupt): are all replacement claims initialized? DeadlineExceededError past the deadline. */
import { checkReplacementsReady, DisruptionStateInput, parseStateInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>) => async (event: unknown) =>
  checkReplacementsReady(deps, parseStateInput('checkReplacementsReady', DisruptionStateInput, event));

export const handler = deployedHandler('checkReplacementsReady', { cluster }, createHandler);
