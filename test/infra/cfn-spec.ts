/**
 * Checks a CloudFormation template against AWS's resource definitions as published in the AWS service spec
 * (`@aws-cdk/aws-service-spec`, the CloudFormation registry schemas the AWS CDK generates from): every resource
 * type exists, every property is known, required properties are set, and values have the property's type —
 * strings, numbers, booleans, lists, maps, nested property types, tags, unions. Intrinsic functions (Ref,
 * Fn::*) are accepted where a value goes: their result is known only at deploy time. The spec package does not
 * carry the schemas' patterns and lengths; the rules AWS enforces beyond it that nodewright has hit (IAM
 * description characters) are separate tests.
 */
import { loadAwsServiceSpec } from '@aws-cdk/aws-service-spec';

type SpecType = { type: string; element?: SpecType; reference?: { $ref: string }; types?: SpecType[] };
type SpecProperty = { type: SpecType; required?: boolean };
type Db = Awaited<ReturnType<typeof loadAwsServiceSpec>>;

export interface Violation {
  resource: string;
  path: string;
  problem: string;
}

let db: Promise<Db> | undefined;
const spec = () => (db ??= loadAwsServiceSpec());

const isIntrinsic = (v: unknown): boolean => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::') || keys[0] === 'Condition');
};

const describeType = (t: SpecType): string =>
  t.type === 'array'
    ? `list of ${describeType(t.element!)}`
    : t.type === 'map'
      ? `map of ${describeType(t.element!)}`
      : t.type === 'union'
        ? t.types!.map(describeType).join(' | ')
        : t.type;

function checkValue(d: Db, value: unknown, t: SpecType, path: string, out: Omit<Violation, 'resource'>[]): void {
  if (isIntrinsic(value)) return;
  const fail = (): void => {
    out.push({ path, problem: `expected ${describeType(t)}, got ${JSON.stringify(value)?.slice(0, 80)}` });
  };
  switch (t.type) {
    case 'string':
    case 'date-time':
      // CloudFormation turns scalars into strings for string properties.
      if (!['string', 'number', 'boolean'].includes(typeof value)) fail();
      return;
    case 'integer':
    case 'number':
      if (!(typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))))) fail();
      else if (t.type === 'integer' && !Number.isInteger(Number(value))) fail();
      return;
    case 'boolean':
      if (!(typeof value === 'boolean' || value === 'true' || value === 'false')) fail();
      return;
    case 'json':
      if (typeof value !== 'object' && typeof value !== 'string') fail();
      return;
    case 'tag':
      checkObject(d, value, { Key: { type: { type: 'string' }, required: true }, Value: { type: { type: 'string' }, required: true } }, path, out);
      return;
    case 'array':
      if (!Array.isArray(value)) return fail();
      value.forEach((v, i) => checkValue(d, v, t.element!, `${path}[${i}]`, out));
      return;
    case 'map':
      if (!value || typeof value !== 'object' || Array.isArray(value)) return fail();
      for (const [k, v] of Object.entries(value)) checkValue(d, v, t.element!, `${path}.${k}`, out);
      return;
    case 'ref': {
      const def = d.get('typeDefinition', t.reference!.$ref) as unknown as { properties: Record<string, SpecProperty> };
      checkObject(d, value, def.properties, path, out);
      return;
    }
    case 'union': {
      for (const alt of t.types!) {
        const tried: Omit<Violation, 'resource'>[] = [];
        checkValue(d, value, alt, path, tried);
        if (tried.length === 0) return;
      }
      fail();
      return;
    }
    default:
      return;
  }
}

function checkObject(d: Db, value: unknown, properties: Record<string, SpecProperty>, path: string, out: Omit<Violation, 'resource'>[]): void {
  if (isIntrinsic(value)) return;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    out.push({ path, problem: `expected an object, got ${JSON.stringify(value)?.slice(0, 80)}` });
    return;
  }
  const given = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(given)) {
    const p = properties[k];
    if (!p) out.push({ path: path ? `${path}.${k}` : k, problem: `unknown property (known: ${Object.keys(properties).join(', ')})` });
    else checkValue(d, v, p.type, path ? `${path}.${k}` : k, out);
  }
  for (const [k, p] of Object.entries(properties)) {
    if (p.required && !(k in given)) out.push({ path: path ? `${path}.${k}` : k, problem: 'required property missing' });
  }
}

/** Every violation of the template's resources against the AWS service spec. */
export async function validateTemplate(template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> }): Promise<Violation[]> {
  const d = await spec();
  const out: Violation[] = [];
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') continue;
    const found = d.lookup('resource', 'cloudFormationType', 'equals', r.Type);
    if (found.length === 0) {
      out.push({ resource: id, path: 'Type', problem: `unknown resource type ${r.Type}` });
      continue;
    }
    const res = found.only() as unknown as { properties: Record<string, SpecProperty> };
    const problems: Omit<Violation, 'resource'>[] = [];
    checkObject(d, r.Properties ?? {}, res.properties, '', problems);
    out.push(...problems.map((p) => ({ resource: id, ...p })));
  }
  return out;
}
