/** Parsing a Task's input (the state the ASL hands over) with zod: a wrong shape is a named error naming the field. */
import { z } from 'zod';
import { ExecutionInputInvalidError } from '../../core/errors';

export function parseStateInput<S extends z.ZodType>(functionKey: string, schema: S, event: unknown): z.infer<S> {
  const result = schema.safeParse(event);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
    throw new ExecutionInputInvalidError(`${functionKey}: task input is invalid: ${problems}`);
  }
  return result.data;
}

export const StateFields = {
  nodeClaimName: z.string().min(1),
  nodeName: z.string().min(1),
  providerID: z.string().min(1),
  deadlineMs: z.number().int().nonnegative(),
  reason: z.string().min(1),
};

/** A terminate target as the terminate machine carries it. */
export const TargetSchema = z.looseObject({
  nodeClaimName: StateFields.nodeClaimName.optional(),
  nodeName: StateFields.nodeName.optional(),
  providerID: StateFields.providerID.optional(),
  reason: StateFields.reason.default('Manual'),
}).refine((t) => t.nodeClaimName !== undefined || t.nodeName !== undefined, { message: 'nodeClaimName or nodeName is required' });

export const DrainingSchema = z.looseObject({
  nodeClaimName: StateFields.nodeClaimName.optional(),
  nodeName: StateFields.nodeName.optional(),
  providerID: StateFields.providerID.optional(),
  reason: StateFields.reason.default('Manual'),
  drainDeadlineMs: z.number().int().nonnegative(),
  forceAtDeadline: z.boolean(),
  passes: z.number().int().nonnegative().optional(),
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
