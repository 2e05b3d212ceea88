/** ValidateLaunchInput: checks a `launch` execution's input before any side effect. */
import { ExecutionInputInvalidError } from '../../shared/core/errors';
import { LifecycleTimings, parseLaunchInput, planCapacity, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';

export type ValidatedLaunch =
  | { kind: 'claim'; nodeClaimName: string; deadlineMs: number }
  | { kind: 'pool'; nodePool: string; count: number }
  | { kind: 'reconcile' };

export const createHandler = (deps: Pick<LifecycleDeps, 'cluster' | 'cloud' | 'store' | 'clock'>) => async (event: unknown): Promise<ValidatedLaunch> => {
  const input = parseLaunchInput(event);
  if (input.kind === 'reconcile') return { kind: 'reconcile' };
  if (input.kind === 'pool') {
    // The whole plan, read-only: a missing or unready pool, an exceeded limit or no compatible type fails here.
    await planCapacity(deps, { nodePool: input.nodePool, count: input.count, seed: 'validate' });
    return { kind: 'pool', nodePool: input.nodePool, count: input.count };
  }
  if (!(await deps.cluster.getNodeClaim(input.nodeClaimName))) {
    throw new ExecutionInputInvalidError(`launch execution input nodeClaimName: nodeclaim "${input.nodeClaimName}" does not exist`);
  }
  return { kind: 'claim', nodeClaimName: input.nodeClaimName, deadlineMs: deps.clock.now() + LifecycleTimings.registrationTimeoutMs };
};

export const handler = deployedHandler('validateLaunchInput', createHandler);
