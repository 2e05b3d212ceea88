/** Zod building blocks shared by the NodePool and EC2NodeClass schemas, and zod issue → ManifestValidationError. */
import { z } from 'zod';
import { fail, formatPath, type ManifestContext } from './context';

/** A string, also accepting YAML numbers/booleans that were meant as strings (`values: [2]`). */
export const stringish = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** An object that must be present: says "is required" rather than "expected object, received undefined". */
export const requiredObject = <T extends z.ZodRawShape>(shape: T, what: string) =>
  z.object(shape, { error: (iss) => (iss.input === undefined ? `${what} is required` : `${what} must be an object`) });

export const stringMapSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]).transform((v) => (v === null ? '' : String(v))));

export const quantitySchema = z.union([z.string(), z.number()]);

/** Go duration with h/m/s units, as the CRDs allow. */
export const DURATION_RE = /^([0-9]+(s|m|h))+$/;

export const durationOrNever = (what: string) =>
  stringish.refine((s) => s === 'Never' || DURATION_RE.test(s), `${what} must be a duration like "30s", "15m", "720h" or "Never"`);

export const duration = (what: string) =>
  stringish.refine((s) => DURATION_RE.test(s), `${what} must be a duration like "30s", "15m" or "2h"`);

/** Runs a schema; the first issue becomes one ManifestValidationError naming the field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, ctx: ManifestContext | undefined, problemSuffix = ''): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  fail(ctx, formatPath(issue.path), `${issueMessage(issue)}${problemSuffix}`);
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message;
}
