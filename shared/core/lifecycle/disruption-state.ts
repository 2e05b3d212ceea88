/**
 * The `disrupt` machine's state as its Tasks receive it (ValidateDisruptInput's output, carried by the machine),
 * checked at each Task's edge. The fields the Tasks rely on are checked here; the replacement NodeClaims are
 * ValidateDisruptInput's own output, validated there in full, so they are taken as they come (one cast, here).
 */
import { z } from 'zod';
import type { DisruptionState } from './disruption';

const Fields = {
  reason: z.string().min(1),
  candidates: z.array(z.looseObject({ nodeClaimName: z.string().min(1), nodeName: z.string().min(1).optional() })).min(1),
  replacements: z.array(z.looseObject({ name: z.string().min(1) })),
  disruptionId: z.string().min(1),
  deadlineMs: z.number().int().nonnegative(),
};

/** CheckReplacementsReady, TaintCandidates, StartTerminations: the disruption state. */
export const DisruptionStateInput = z.looseObject(Fields).transform((s) => s as unknown as DisruptionState);

/** UntaintCandidates (the rollback): the state and the error that ended the disruption. */
export const RollbackInput = z.looseObject({ ...Fields, error: z.looseObject({ Error: z.string().optional(), Cause: z.string().optional() }).optional() })
  .transform(({ error, ...state }) => ({ state: state as unknown as DisruptionState, error: error?.Error }));
