/** The `terminate` machine's Task inputs, checked at each Task's edge (termination.ts, drain.ts, release.ts). */
import * as z from '../zod';
import { instant, StateFields } from './task-input';

/** A terminate target as the terminate machine carries it. */
const TargetFields = {
  nodeClaimName: z.optional(StateFields.nodeClaimName),
  nodeName: z.optional(StateFields.nodeName),
  providerID: z.optional(StateFields.providerID),
  reason: z._default(StateFields.reason, 'Manual'),
  drainSeconds: z.optional(z.number().check(z.int(), z.gte(0))),
};

export const TargetSchema = z
  .looseObject(TargetFields)
  .check(z.refine((t) => t.nodeClaimName !== undefined || t.nodeName !== undefined, { message: 'nodeClaimName or nodeName is required' }));

/** EvictPods, ContinueDrain: a target being drained. */
export const DrainingSchema = z.looseObject({
  ...TargetFields,
  drainDeadlineMs: instant,
  forceAtDeadline: z.boolean(),
  passes: z.optional(z.number().check(z.int(), z.nonnegative())),
  volumesAwaiting: z.optional(z.array(z.string())),
});

const ErrorField = z.looseObject({ error: z.optional(z.looseObject({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })) });

/**
 * ReleaseNode (the compensation): why the termination failed, from the error the machine caught — read
 * leniently, a compensation must not fail on an odd error shape.
 */
export function failureOf(event: unknown): string {
  const error = ErrorField.safeParse(event).data?.error;
  return `${error?.Error ?? 'unknown'}${error?.Cause ? `: ${error.Cause.slice(0, 300)}` : ''}`;
}
