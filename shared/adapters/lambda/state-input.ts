/** Parsing a Task's input (the state the ASL hands over) with zod: a wrong shape is a named error naming the field. */
import * as z from '../../core/zod';
import { ExecutionInputInvalidError } from '../../core/errors';
import { epochMs } from '../../core/time';

export function parseStateInput<S extends z.ZodMiniType>(functionKey: string, schema: S, event: unknown): z.infer<S> {
  const result = schema.safeParse(event);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
    throw new ExecutionInputInvalidError(`${functionKey}: task input is invalid: ${problems}`);
  }
  return result.data;
}

/** An instant the machine carries (epoch ms, an integer on the wire): EpochMs once parsed. */
const instant = z.pipe(z.number().check(z.int(), z.nonnegative()), z.transform((ms: number) => epochMs(ms)));

export const StateFields = {
  nodeClaimName: z.string().check(z.minLength(1)),
  nodeName: z.string().check(z.minLength(1)),
  providerID: z.string().check(z.minLength(1)),
  deadlineMs: instant,
  reason: z.string().check(z.minLength(1)),
};

/** A terminate target as the terminate machine carries it. */
export const TargetSchema = z.looseObject({
  nodeClaimName: z.optional(StateFields.nodeClaimName),
  nodeName: z.optional(StateFields.nodeName),
  providerID: z.optional(StateFields.providerID),
  reason: z._default(StateFields.reason, 'Manual'),
}).check(z.refine((t) => t.nodeClaimName !== undefined || t.nodeName !== undefined, { message: 'nodeClaimName or nodeName is required' }));

export const DrainingSchema = z.looseObject({
  nodeClaimName: z.optional(StateFields.nodeClaimName),
  nodeName: z.optional(StateFields.nodeName),
  providerID: z.optional(StateFields.providerID),
  reason: z._default(StateFields.reason, 'Manual'),
  drainDeadlineMs: instant,
  forceAtDeadline: z.boolean(),
  passes: z.optional(z.number().check(z.int(), z.nonnegative())),
});

/**
 * Tasks that need to know which execution they run in get `{input, executionName}` from the state machine
 * (`executionName.$: $$.Execution.Name`); a bare input (a direct call, an older execution) is accepted too.
 */
export function unwrapExecution(event: unknown): { input: unknown; executionName?: string } {
  if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
    const keys = Object.keys(event).sort().join(',');
    const e = event as Record<string, unknown>;
    if (keys === 'executionName,input' && typeof e.executionName === 'string') return { input: e.input, executionName: e.executionName };
  }
  return { input: event };
}
