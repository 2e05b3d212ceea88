/**
 * Parsing a Task's input (the state the ASL hands over) with zod: a wrong shape is a named error naming the
 * field. Each use case's input schemas are beside it (launch-input.ts, termination-input.ts, disruption-state.ts).
 */
import * as z from '../zod';
import { ExecutionInputInvalidError } from '../errors';
import { epochMs } from '../time';

export function parseStateInput<S extends z.ZodMiniType>(functionKey: string, schema: S, event: unknown): z.infer<S> {
  const result = schema.safeParse(event);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
    throw new ExecutionInputInvalidError(`${functionKey}: task input is invalid: ${problems}`);
  }
  return result.data;
}

/** An instant the machine carries (epoch ms, an integer on the wire): EpochMs once parsed. */
export const instant = z.pipe(
  z.number().check(z.int(), z.nonnegative()),
  z.transform((ms: number) => epochMs(ms)),
);

export const StateFields = {
  nodeClaimName: z.string().check(z.minLength(1)),
  nodeName: z.string().check(z.minLength(1)),
  providerID: z.string().check(z.minLength(1)),
  deadlineMs: instant,
  reason: z.string().check(z.minLength(1)),
};

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
