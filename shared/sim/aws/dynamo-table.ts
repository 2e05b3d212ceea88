/**
 * A DynamoDB table in memory, answering the DocumentClient commands the production DynamoStateStore sends
 * (Put / Delete with ConditionExpression, Query with KeyConditionExpression and FilterExpression). The
 * expression grammar covered: `a = :v`, `<`, `<=`, `>`, `>=`, `<>`, `attribute_exists(a)`,
 * `attribute_not_exists(a)`, joined by AND / OR (AND binds tighter), `#name` placeholders.
 */
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';

/** Where the table reports the capacity its requests consume (shared/sim/runtime/metering.ts). */
export interface TableCapacityMeter {
  dynamoRead(bytes: number, consistent: boolean): void;
  dynamoWrite(bytes: number): void;
}

type Item = Record<string, unknown>;

class DynamoExpressionUnsupportedError extends Error {
  override readonly name = 'DynamoExpressionUnsupportedError' as const;
}

function conditionalCheckFailed(): DynamoDBServiceException {
  return new DynamoDBServiceException({
    name: 'ConditionalCheckFailedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: 'The conditional request failed',
  });
}

/** One term of an expression, parsed once: attribute (not) present, a comparison, or what the table cannot evaluate. */
type Term =
  | { kind: 'exists'; a: string }
  | { kind: 'notExists'; a: string }
  | { kind: 'cmp'; left: string; op: string; right: string }
  | { kind: 'unsupported'; term: string };

function parseTerm(raw: string): Term {
  const count = (t: string, c: string) => t.split(c).length - 1;
  let term = raw.trim();
  while (term.startsWith('(') && count(term, '(') > count(term, ')')) term = term.slice(1).trim();
  while (term.endsWith(')') && count(term, ')') > count(term, '(')) term = term.slice(0, -1).trim();
  let m = /^attribute_not_exists\((.+)\)$/i.exec(term);
  if (m) return { kind: 'notExists', a: m[1].trim() };
  m = /^attribute_exists\((.+)\)$/i.exec(term);
  if (m) return { kind: 'exists', a: m[1].trim() };
  m = /^(.+?)\s*(<>|<=|>=|=|<|>)\s*(.+)$/.exec(term);
  return m ? { kind: 'cmp', left: m[1].trim(), op: m[2], right: m[3].trim() } : { kind: 'unsupported', term };
}

/** Each expression met, parsed: its OR of ANDs of terms (AND binds tighter). */
const parsed = new Map<string, Term[][]>();
const parse = (expression: string): Term[][] => {
  let p = parsed.get(expression);
  if (!p) parsed.set(expression, (p = expression.split(/\s+OR\s+/i).map((d) => d.split(/\s+AND\s+/i).map(parseTerm))));
  return p;
};

function holds(t: Term, item: Item | undefined, values: Record<string, unknown>, names: Record<string, string>): boolean {
  const attr = (a: string) => names[a] ?? a;
  if (t.kind === 'unsupported') throw new DynamoExpressionUnsupportedError(`expression not supported by the simulated table: ${t.term}`);
  if (t.kind === 'notExists') return item === undefined || item[attr(t.a)] === undefined;
  if (t.kind === 'exists') return item !== undefined && item[attr(t.a)] !== undefined;
  const value = (v: string) => (v.startsWith(':') ? values[v] : item?.[attr(v)]) as string | number | undefined;
  const left = value(t.left);
  const right = value(t.right);
  if (left === undefined || right === undefined) return t.op === '<>' ? left !== right : false;
  switch (t.op) {
    case '=':
      return left === right;
    case '<>':
      return left !== right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '>':
      return left > right;
    default:
      return left >= right;
  }
}

export function evaluate(
  expression: string | undefined,
  item: Item | undefined,
  values: Record<string, unknown> = {},
  names: Record<string, string> = {},
): boolean {
  if (!expression) return true;
  return parse(expression).some((conjunction) => conjunction.every((t) => holds(t, item, values, names)));
}

export class DynamoTable {
  private readonly items = new Map<string, Item>();
  /** The items by partition key value (each partition in the table's order): a Query reads its partition only. */
  private readonly partitions = new Map<unknown, Map<string, Item>>();

  constructor(
    readonly partitionKey = 'pk',
    readonly sortKey = 'sk',
    private readonly capacity?: TableCapacityMeter,
  ) {}

  private key(k: Item): string {
    return JSON.stringify([k[this.partitionKey], k[this.sortKey]]);
  }

  put(input: {
    Item?: Item;
    ConditionExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
    ExpressionAttributeNames?: Record<string, string>;
  }): Record<string, never> {
    const item = structuredClone(input.Item ?? {});
    const k = this.key(item);
    this.capacity?.dynamoWrite(Math.max(dynamoItemBytes(item), dynamoItemBytes(this.items.get(k))));
    if (!evaluate(input.ConditionExpression, this.items.get(k), input.ExpressionAttributeValues, input.ExpressionAttributeNames))
      throw conditionalCheckFailed();
    this.items.set(k, item);
    let partition = this.partitions.get(item[this.partitionKey]);
    if (!partition) this.partitions.set(item[this.partitionKey], (partition = new Map()));
    partition.set(k, item);
    return {};
  }

  delete(input: {
    Key?: Item;
    ConditionExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
    ExpressionAttributeNames?: Record<string, string>;
  }): Record<string, never> {
    const k = this.key(input.Key ?? {});
    this.capacity?.dynamoWrite(dynamoItemBytes(this.items.get(k)));
    if (!evaluate(input.ConditionExpression, this.items.get(k), input.ExpressionAttributeValues, input.ExpressionAttributeNames))
      throw conditionalCheckFailed();
    const gone = this.items.get(k);
    this.items.delete(k);
    if (gone) this.partitions.get(gone[this.partitionKey])?.delete(k);
    return {};
  }

  get(input: { Key?: Item; ConsistentRead?: boolean }): { Item?: Item } {
    const item = this.items.get(this.key(input.Key ?? {}));
    this.capacity?.dynamoRead(dynamoItemBytes(item), input.ConsistentRead === true);
    return item ? { Item: structuredClone(item) } : {};
  }

  query(input: {
    KeyConditionExpression?: string;
    FilterExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
    ExpressionAttributeNames?: Record<string, string>;
    ExclusiveStartKey?: Item;
    Limit?: number;
    ConsistentRead?: boolean;
  }): { Items: Item[]; Count: number; LastEvaluatedKey?: Item } {
    const matching = [...this.candidates(input.KeyConditionExpression, input.ExpressionAttributeValues, input.ExpressionAttributeNames)]
      .filter((i) => evaluate(input.KeyConditionExpression, i, input.ExpressionAttributeValues, input.ExpressionAttributeNames))
      .sort((a, b) => String(a[this.sortKey]).localeCompare(String(b[this.sortKey])));
    let start = 0;
    if (input.ExclusiveStartKey) start = matching.findIndex((i) => this.key(i) === this.key(input.ExclusiveStartKey as Item)) + 1;
    const limit = input.Limit ?? 1000;
    const slice = matching.slice(start, start + limit);
    this.capacity?.dynamoRead(
      slice.reduce((s, i) => s + dynamoItemBytes(i), 0),
      input.ConsistentRead === true,
    );
    const items = slice
      .filter((i) => evaluate(input.FilterExpression, i, input.ExpressionAttributeValues, input.ExpressionAttributeNames))
      .map((i) => structuredClone(i));
    const last = start + limit < matching.length ? slice[slice.length - 1] : undefined;
    return {
      Items: items,
      Count: items.length,
      ...(last ? { LastEvaluatedKey: { [this.partitionKey]: last[this.partitionKey], [this.sortKey]: last[this.sortKey] } } : {}),
    };
  }

  /** The items a key condition can match: the partition it names (`pk = :v`, alone or ANDed), else every item. */
  private candidates(expression: string | undefined, values: Record<string, unknown> = {}, names: Record<string, string> = {}): Iterable<Item> {
    const terms = expression ? parse(expression) : [];
    const named =
      terms.length === 1
        ? terms[0].find((t) => t.kind === 'cmp' && t.op === '=' && (names[t.left] ?? t.left) === this.partitionKey && t.right.startsWith(':'))
        : undefined;
    if (named?.kind !== 'cmp') return this.items.values();
    return this.partitions.get(values[named.right])?.values() ?? [];
  }

  size(): number {
    return this.items.size;
  }
}

/** The size DynamoDB bills an item at: attribute names plus values (strings UTF-8, numbers ≤ 21 bytes, lists/maps 3 + 1 per element). */
export function dynamoItemBytes(item: Record<string, unknown> | undefined): number {
  if (!item) return 0;
  const value = (v: unknown): number => {
    if (v === null || v === undefined || typeof v === 'boolean') return 1;
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (typeof v === 'number' || typeof v === 'bigint') return Math.min(21, Math.ceil(String(v).replace(/[-.]/g, '').length / 2) + 1);
    if (v instanceof Uint8Array) return v.byteLength;
    if (v instanceof Set) return [...v].reduce<number>((s, x) => s + value(x), 0);
    if (Array.isArray(v)) return 3 + v.reduce<number>((s, x) => s + value(x) + 1, 0);
    if (typeof v === 'object') return 3 + Object.entries(v as Record<string, unknown>).reduce((s, [k, x]) => s + Buffer.byteLength(k) + value(x) + 1, 0);
    return Buffer.byteLength(String(v));
  };
  return Object.entries(item).reduce((s, [k, v]) => s + Buffer.byteLength(k) + value(v), 0);
}
