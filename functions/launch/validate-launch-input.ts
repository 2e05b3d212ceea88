/** ValidateLaunchInput: checks a `launch` execution's input before any side effect. */
import { ExecutionInputInvalidError } from '../../shared/core/errors';
import { LifecycleTimings, parseLaunchInput, usablePool, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { epochMs, type EpochMs } from '../../shared/core/time';

export type ValidatedLaunch =
  | { kind: 'claim'; nodeClaimName: string; deadlineMs: EpochMs }
  | { kind: 'pool'; nodePool: string; count: number }
  | { kind: 'reconcile' };

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster'>) => async (event: unknown): Promise<ValidatedLaunch> => {
  const input = parseLaunchInput(event);
  if (input.kind === 'reconcile') return { kind: 'reconcile' };
  if (input.kind === 'pool') {
    // A missing, deleting or unready pool fails here (this function reads the cluster only). Limits and
    // instance types are checked by CreateNodeClaims, which plans every claim before it creates any.
    usablePool(await deps.cluster.snapshot(), input.nodePool);
    return { kind: 'pool', nodePool: input.nodePool, count: input.count };
  }
  if (!(await deps.cluster.getNodeClaim(input.nodeClaimName))) {
    throw new ExecutionInputInvalidError(`launch execution input nodeClaimName: nodeclaim "${input.nodeClaimName}" does not exist`);
  }
  return { kind: 'claim', nodeClaimName: input.nodeClaimName, deadlineMs: epochMs(deps.clock.now() + LifecycleTimings.registrationTimeoutMs) };
};

export const handler = deployedHandler('validateLaunchInput', { cluster }, createHandler);
