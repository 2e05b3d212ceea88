/** CheckRegistration: one look for the claim's Node; registers it (labels, taints, Registered) when it is there. */
import * as z from '../../shared/core/zod';
import { checkRegistration, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { parseStateInput, StateFields } from '../../shared/adapters/lambda/state-input';

const Input = z.looseObject({ nodeClaimName: StateFields.nodeClaimName, deadlineMs: StateFields.deadlineMs });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics'>) => async (event: unknown) =>
  checkRegistration(deps, parseStateInput('checkRegistration', Input, event));

export const handler = deployedHandler('checkRegistration', { cluster }, createHandler);
