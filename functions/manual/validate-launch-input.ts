/** ValidateLaunchInput: checks a `launch` execution's input before any side effect. */
import { ExecutionInputInvalidError } from '../../shared/core/errors';
import { LifecycleTimings, parseLaunchInput, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';

export type ValidatedLaunch =
  | { kind: 'claim'; nodeClaimName: string; deadlineMs: number }
  | { kind: 'pool'; nodePool: string; count: number }
  | { kind: 'reconcile' };

export const createHandler = (deps: Pick<LifecycleDeps, 'cluster' | 'clock'>) => async (event: unknown): Promise<ValidatedLaunch> => {
  const input = parseLaunchInput(event);
  if (input.kind === 'reconcile') return { kind: 'reconcile' };
  if (input.kind === 'pool') {
    const snapshot = await deps.cluster.snapshot();
    if (!snapshot.nodePools.some((p) => p.name === input.nodePool)) {
      throw new ExecutionInputInvalidError(`launch execution input nodePool: nodepool "${input.nodePool}" does not exist (known: ${snapshot.nodePools.map((p) => p.name).join(', ') || 'none'})`);
    }
    return { kind: 'pool', nodePool: input.nodePool, count: input.count };
  }
  if (!(await deps.cluster.getNodeClaim(input.nodeClaimName))) {
    throw new ExecutionInputInvalidError(`launch execution input nodeClaimName: nodeclaim "${input.nodeClaimName}" does not exist`);
  }
  return { kind: 'claim', nodeClaimName: input.nodeClaimName, deadlineMs: deps.clock.now() + LifecycleTimings.registrationTimeoutMs };
};

export const handler = deployedHandler('validateLaunchInput', createHandler);
