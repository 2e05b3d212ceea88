/** The `launch` machine's Task inputs, checked at each Task's edge (launch.ts, registration.ts, capacity.ts). */
import * as z from '../zod';
import { ExecutionInputInvalidError } from '../errors';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import { parseLaunchInput } from './manual-input';
import { usablePool } from './capacity';
import { StateFields } from './task-input';
import { addMs, type EpochMs } from '../time';

/** LaunchNodeClaim, CheckRegistration. */
export const ClaimDeadlineInput = z.looseObject({ nodeClaimName: StateFields.nodeClaimName, deadlineMs: StateFields.deadlineMs });

/** InitializeNode. */
export const InitializeNodeInput = z.looseObject({
  nodeClaimName: StateFields.nodeClaimName,
  nodeName: StateFields.nodeName,
  deadlineMs: StateFields.deadlineMs,
});

/** MarkOfferingUnavailable: the claim and the error its launch failed with. */
export const MarkOfferingUnavailableInput = z.looseObject({
  nodeClaimName: StateFields.nodeClaimName,
  error: z.optional(z.looseObject({ Error: z.optional(z.string()) })),
});

/** CreateNodeClaims (a static pool's launch): `count` claims, named from the execution. */
export const CreateNodeClaimsInput = z.looseObject({
  nodePool: z.string().check(z.minLength(1)),
  count: z.number().check(z.int(), z.gte(1), z.lte(100)),
  executionName: z.string().check(z.minLength(1)),
});

export type ValidatedLaunch =
  { kind: 'claim'; nodeClaimName: string; deadlineMs: EpochMs } | { kind: 'pool'; nodePool: string; count: number } | { kind: 'reconcile' };

/** ValidateLaunchInput: a `launch` execution's input, checked before any side effect. */
export async function validateLaunchInput(deps: Pick<LifecycleDeps, 'clock' | 'cluster'>, event: unknown): Promise<ValidatedLaunch> {
  const input = parseLaunchInput(event);
  if (input.kind === 'reconcile') return { kind: 'reconcile' };
  if (input.kind === 'pool') {
    // A missing, deleting or unready pool fails here (this function reads the pools and classes only). Limits and
    // instance types are checked by CreateNodeClaims, which plans every claim before it creates any.
    usablePool(await deps.cluster.listObjects(['nodePools', 'nodeClasses']), input.nodePool);
    return { kind: 'pool', nodePool: input.nodePool, count: input.count };
  }
  if (!(await deps.cluster.getNodeClaim(input.nodeClaimName))) {
    throw new ExecutionInputInvalidError(`launch execution input nodeClaimName: nodeclaim "${input.nodeClaimName}" does not exist`);
  }
  return { kind: 'claim', nodeClaimName: input.nodeClaimName, deadlineMs: addMs(deps.clock.now(), LifecycleTimings.registrationTimeoutMs) };
}
