/**
 * The API server's CEL validation of custom resources: every `x-kubernetes-validations` rule of the CRD's schema,
 * evaluated with `self` bound to the value at its node (for each item of an array, each value of a map), and
 * transition rules (those naming `oldSelf`) only on an update where the old object has a value there. A rule
 * that is false gives the API server's cause: `<field>: Invalid value: "<type>": <message>`.
 *
 * CEL is @marcbachmann/cel-js, which has Kubernetes' strings library (`split`, `lowerAscii`, `join` …); the
 * regex library's `find` and `findAll` are added here.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { Json } from './types';

export interface CelCause {
  reason: 'FieldValueInvalid';
  field: string;
  message: string;
}

interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
}

const env = new Environment({ unlistedVariablesAreDyn: true })
  .registerFunction({
    name: 'find',
    receiverType: 'string',
    returnType: 'string',
    params: [{ name: 'regex', type: 'string' }],
    handler: (s: string, re: string) => new RegExp(re).exec(s)?.[0] ?? '',
  })
  .registerFunction({
    name: 'findAll',
    receiverType: 'string',
    returnType: 'list<string>',
    params: [{ name: 'regex', type: 'string' }],
    handler: (s: string, re: string) => [...s.matchAll(new RegExp(re, 'g'))].map((m) => m[0]),
  });

const compiled = new Map<string, (ctx: Record<string, unknown>) => unknown>();

function program(rule: string): (ctx: Record<string, unknown>) => unknown {
  let p = compiled.get(rule);
  if (!p) {
    const parsed = env.parse(rule);
    p = (ctx) => parsed(ctx);
    compiled.set(rule, p);
  }
  return p;
}

/** JSON as CEL sees it: integers of `integer` schemas are CEL ints. */
function toCel(value: unknown, schema: Json | undefined): unknown {
  if (value === null || value === undefined || !schema) return value;
  if (typeof value === 'number') return schema.type === 'integer' && Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema.items as Json | undefined));
  if (typeof value === 'object') {
    const props = (schema.properties ?? {}) as Record<string, Json>;
    const extra = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Json) : undefined;
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toCel(v, props[k] ?? extra)]));
  }
  return value;
}

const typeName = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/** `spec.template.spec.requirements` from the path parts (array indexes as `[i]`). */
const join = (path: (string | number)[]): string => path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${p}` : p), '');

function evaluateRules(schema: Json, value: unknown, old: unknown, path: (string | number)[], causes: CelCause[]): void {
  for (const r of (schema['x-kubernetes-validations'] ?? []) as unknown as Rule[]) {
    const transition = /\boldSelf\b/.test(r.rule);
    if (transition && old === undefined) continue;
    let ok: unknown;
    try {
      ok = program(r.rule)({ self: toCel(value, schema), ...(transition ? { oldSelf: toCel(old, schema) } : {}) });
    } catch (e) {
      // e.g. `x.values.size()` on a requirement without values: the API server refuses the object too.
      const error = (e as Error).message.split('\n')[0].replace(/^No such key/, 'no such key');
      causes.push({
        reason: 'FieldValueInvalid',
        field: join(path),
        message: `Invalid value: ${JSON.stringify(typeName(value))}: ${error} evaluating rule: ${r.message ?? r.rule}`,
      });
      continue;
    }
    if (ok !== true) {
      const field = join(r.fieldPath ? [...path, ...r.fieldPath.replace(/^\./, '').split('.')] : path);
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${JSON.stringify(typeName(value))}: ${r.message ?? `failed rule: ${r.rule}`}`,
      });
    }
  }
}

function walk(schema: Json, value: unknown, old: unknown, path: (string | number)[], causes: CelCause[]): void {
  if (value === undefined || value === null) return;
  evaluateRules(schema, value, old, path, causes);
  if (Array.isArray(value)) {
    const items = schema.items as Json | undefined;
    // Array items are correlated with the old object's only in map-type lists; no transition rules below here.
    if (items) value.forEach((v, i) => walk(items, v, undefined, [...path, i], causes));
    return;
  }
  if (typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const oldObj = old && typeof old === 'object' && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  const props = (schema.properties ?? {}) as Record<string, Json>;
  for (const [k, s] of Object.entries(props)) walk(s, obj[k], oldObj?.[k], [...path, k], causes);
  if (typeof schema.additionalProperties === 'object') {
    for (const [k, v] of Object.entries(obj)) if (!(k in props)) walk(schema.additionalProperties as Json, v, oldObj?.[k], [...path, k], causes);
  }
}

/** Every failed rule of `obj` (and, for transition rules, of `obj` against `old`). */
export function celCauses(schema: Json, obj: unknown, old?: unknown): CelCause[] {
  const causes: CelCause[] = [];
  walk(schema, obj, old, [], causes);
  return causes;
}
