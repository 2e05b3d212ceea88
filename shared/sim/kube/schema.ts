/**
 * Structural validation of custom resources against their CRD's `openAPIV3Schema`, as the API server does it on
 * create, update and patch (status writes excepted), with the API server's field paths and wording:
 * `NodePool.karpenter.sh "x" is invalid: spec.template.spec.requirements[0].operator: Unsupported value: "Inn":
 * supported values: "In", "NotIn", …`. The schema's `default`s are applied first, as the API server defaults a
 * custom resource; the schema keywords are then checked by Ajv (JSON Schema) and, when the object is
 * structurally valid, the CEL rules (`x-kubernetes-validations`, cel.ts) — transition rules against the old object.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { celCauses } from './cel';
import { KubeApiStatusError } from './status';
import type { Json, KubeObject, ResourceType } from './types';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true, useDefaults: true });
const compiled = new WeakMap<object, ValidateFunction>();

/** `/spec/template/spec/requirements/0/operator` → `spec.template.spec.requirements[0].operator`. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '');
}

const quoted = (v: unknown) => JSON.stringify(v);

function cause(e: ErrorObject): { reason: string; field: string; message: string } {
  const field = fieldPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const f = field ? `${field}.${String(p.missingProperty)}` : String(p.missingProperty);
      return { reason: 'FieldValueRequired', field: f, message: 'Required value' };
    }
    case 'enum':
      return {
        reason: 'FieldValueNotSupported',
        field,
        message: `Unsupported value: ${quoted(e.data)}: supported values: ${(p.allowedValues as unknown[]).map(quoted).join(', ')}`,
      };
    case 'type':
      return {
        reason: 'FieldValueTypeInvalid',
        field,
        message: `Invalid value: ${quoted(typeof e.data)}: ${field} in body must be of type ${String(p.type)}: ${quoted(typeof e.data)}`,
      };
    case 'minimum':
      return {
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${quoted(e.data)}: ${field} in body should be greater than or equal to ${String(p.limit)}`,
      };
    case 'maximum':
      return {
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${quoted(e.data)}: ${field} in body should be less than or equal to ${String(p.limit)}`,
      };
    case 'maxItems':
      return { reason: 'FieldValueTooMany', field, message: `Too many: ${(e.data as unknown[]).length}: must have at most ${String(p.limit)} items` };
    case 'minItems':
      return {
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${(e.data as unknown[]).length}: ${field} in body should have at least ${String(p.limit)} items`,
      };
    case 'pattern':
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${quoted(e.data)}: ${field} in body should match '${String(p.pattern)}'` };
    default:
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${quoted(e.data)}: ${e.message ?? 'invalid'}` };
  }
}

/**
 * Defaults `obj` in place and throws 422 Invalid when it does not match its type's schema or one of its CEL rules
 * (`old`: the stored object, on an update). Types without a schema are not checked.
 */
export function validateAgainstSchema(rt: ResourceType, obj: KubeObject, old?: KubeObject): void {
  if (!rt.schema) return;
  let validate = compiled.get(rt.schema);
  if (!validate) compiled.set(rt.schema, (validate = ajv.compile(rt.schema as Json)));
  const name = String(obj.metadata?.name ?? '');
  // anyOf / oneOf report each branch; the API server names the field once.
  const causes = validate(obj as unknown)
    ? celCauses(rt.schema as Json, obj, old)
    : (validate.errors ?? [])
        .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf')
        .map(cause)
        .filter((c, i, all) => all.findIndex((x) => x.field === c.field && x.message === c.message) === i);
  if (causes.length === 0) return;
  const kind = rt.group ? `${rt.kind}.${rt.group}` : rt.kind;
  throw new KubeApiStatusError(422, 'Invalid', `${kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`, {
    name,
    group: rt.group,
    kind: rt.kind,
    causes,
  });
}
