/**
 * The `disrupt` machine's state as its Tasks receive it (ValidateDisruptInput's output, carried by the machine),
 * checked at each Task's edge. The fields the Tasks rely on are checked here; the replacement NodeClaims are
 * ValidateDisruptInput's own output, validated there in full, so they are taken as they come (one cast, here).
 */
import * as z from '../zod';
import type { NodeClaim } from '../model/karpenter';
import type { DisruptionState } from './disruption';

const Fields = {
  reason: z.string().check(z.minLength(1)),
  candidates: z
    .array(z.looseObject({ nodeClaimName: z.string().check(z.minLength(1)), nodeName: z.optional(z.string().check(z.minLength(1))) }))
    .check(z.minLength(1)),
  replacements: z.array(z.looseObject({ name: z.string().check(z.minLength(1)) })),
  disruptionId: z.string().check(z.minLength(1)),
  deadlineMs: z.number().check(z.int(), z.nonnegative()),
};

/** CheckReplacementsReady, TaintCandidates, StartTerminations: the disruption state. */
export const DisruptionStateInput = z.pipe(
  z.looseObject(Fields),
  z.transform((s) => s as unknown as DisruptionState),
);

/** UntaintCandidates (the rollback): the state and the error that ended the disruption. */
const RollbackFields = z.looseObject({ ...Fields, error: z.optional(z.looseObject({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })) });
export const RollbackInput = z.pipe(
  RollbackFields,
  z.transform(({ error, ...state }: z.output<typeof RollbackFields>) => ({ state: state as unknown as DisruptionState, error: error?.Error })),
);

/**
 * LaunchReplacement (one item of the Map): a replacement claim as ValidateDisruptInput planned it (validated
 * there in full; its name and pool are checked here), the disruption's id and reason.
 */
const LaunchReplacementFields = z.looseObject({
  nodeClaim: z.looseObject({ name: z.string().check(z.minLength(1)), nodePool: z.string().check(z.minLength(1)), spec: z.looseObject({}) }),
  disruptionId: z.string().check(z.minLength(1)),
  /** The disruption's reason (metrics: karpenter_nodeclaims_created_total{reason}). */
  reason: z.optional(z.string()),
});
export const LaunchReplacementInput = z.pipe(
  LaunchReplacementFields,
  z.transform(({ nodeClaim, disruptionId, reason }: z.output<typeof LaunchReplacementFields>) => ({
    nodeClaim: nodeClaim as unknown as NodeClaim,
    disruptionId,
    ...(reason ? { reason } : {}),
  })),
);
