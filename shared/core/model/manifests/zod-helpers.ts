/** Zod building blocks shared by the NodePool and EC2NodeClass schemas, and zod issue → ManifestValidationError. */
import * as z from '../../zod';
import { isQuantity, parseQuantityValue } from '../quantity';
import { fail, formatPath, type ManifestContext } from './context';

/** A string, also accepting YAML numbers/booleans that were meant as strings (`values: [2]`). */
export const stringish = z.pipe(
  z.union([z.string(), z.number(), z.boolean()]),
  z.transform((v: string | number | boolean) => String(v)),
);

/** An object that must be present: says "is required" rather than "expected object, received undefined". */
export const requiredObject = <T extends z.core.$ZodLooseShape>(shape: T, what: string) =>
  z.object(shape, { error: (iss) => (iss.input === undefined ? `${what} is required` : `${what} must be an object`) });

export const stringMapSchema = z.record(
  z.string(),
  z.pipe(
    z.union([z.string(), z.number(), z.boolean(), z.null()]),
    z.transform((v: string | number | boolean | null) => (v === null ? '' : String(v))),
  ),
);

/** A Kubernetes quantity ("500m", "20Gi", 2): anything else is an issue on the field, never a later throw. */
const quantitySchema = z.union([z.string(), z.number()]).check(
  z.refine(isQuantity, {
    error: (iss) => `invalid quantity ${JSON.stringify(iss.input)} (expected e.g. "500m", "20Gi" or 2)`,
  }),
);

/** A quantity that must not be negative (NodePool limits, kubelet reservations). */
export const nonNegativeQuantity = quantitySchema.check(
  z.refine((q) => !isQuantity(q) || parseQuantityValue(q) >= 0, { error: (iss) => `must not be negative, got ${JSON.stringify(iss.input)}` }),
);

/** A quantity that must be above zero (an EBS volumeSize). */
export const positiveQuantity = quantitySchema.check(
  z.refine((q) => !isQuantity(q) || parseQuantityValue(q) > 0, { error: (iss) => `must be greater than zero, got ${JSON.stringify(iss.input)}` }),
);

/** Go duration with h/m/s units, as the CRDs allow. */
const DURATION_RE = /^([0-9]+(s|m|h))+$/;

export const durationOrNever = (what: string) =>
  stringish.check(z.refine((s) => s === 'Never' || DURATION_RE.test(s), `${what} must be a duration like "30s", "15m", "720h" or "Never"`));

export const duration = (what: string) => stringish.check(z.refine((s) => DURATION_RE.test(s), `${what} must be a duration like "30s", "15m" or "2h"`));

/** Runs a schema; the first issue becomes one ManifestValidationError naming the field. */
export function parseOrThrow<T extends z.ZodMiniType>(schema: T, input: unknown, ctx: ManifestContext | undefined, problemSuffix = ''): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  fail(ctx, formatPath(issue.path), `${issueMessage(issue)}${problemSuffix}`);
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value' && 'values' in issue) {
    const got = 'input' in issue && issue.input !== undefined ? `, got ${JSON.stringify(issue.input)}` : '';
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    const field = String(issue.path[issue.path.length - 1] ?? 'value');
    if (!('input' in issue) || issue.input === undefined) return `${field} is required`;
    const got = Array.isArray(issue.input)
      ? 'a list'
      : issue.input === null
        ? 'null'
        : typeof issue.input === 'object'
          ? 'an object'
          : JSON.stringify(issue.input);
    return `expected ${issue.expected}, got ${got}`;
  }
  return issue.message;
}

interface DefLike {
  _zod: { def: { type: string; shape?: Record<string, unknown>; innerType?: unknown; element?: unknown; in?: unknown } };
}

/**
 * Fields present in `value` that `schema` does not know (zod drops them silently). Used to warn about
 * typos such as `consolidateafter`; maps (records) are open and never reported.
 */
export function unknownFields(schema: unknown, value: unknown, path = ''): string[] {
  const def = (schema as DefLike)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return unknownFields(def.innerType, value, path);
    case 'pipe':
      return unknownFields(def.in, value, path);
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => unknownFields(def.element, v, `${path}[${i}]`)) : [];
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
      const shape = def.shape ?? {};
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
        const p = path ? `${path}.${k}` : k;
        return Object.hasOwn(shape, k) ? unknownFields(shape[k], v, p) : [p];
      });
    }
    default:
      return [];
  }
}
