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

export function evaluate(
  expression: string | undefined,
  item: Item | undefined,
  values: Record<string, unknown> = {},
  names: Record<string, string> = {},
): boolean {
  if (!expression) return true;
  const attr = (a: string) => names[a.trim()] ?? a.trim();
  const value = (v: string) => {
    const t = v.trim();
    if (t.startsWith(':')) return values[t];
    return item?.[attr(t)];
  };
  return expression.split(/\s+OR\s+/i).some((disjunct) =>
    disjunct.split(/\s+AND\s+/i).every((raw) => {
      const count = (t: string, c: string) => t.split(c).length - 1;
      let term = raw.trim();
      while (term.startsWith('(') && count(term, '(') > count(term, ')')) term = term.slice(1).trim();
      while (term.endsWith(')') && count(term, ')') > count(term, '(')) term = term.slice(0, -1).trim();
      let m = /^attribute_not_exists\((.+)\)$/i.exec(term);
      if (m) return item === undefined || item[attr(m[1])] === undefined;
      m = /^attribute_exists\((.+)\)$/i.exec(term);
      if (m) return item !== undefined && item[attr(m[1])] !== undefined;
      m = /^(.+?)\s*(<>|<=|>=|=|<|>)\s*(.+)$/.exec(term);
      if (!m) throw new DynamoExpressionUnsupportedError(`expression not supported by the simulated table: ${term}`);
      const left = value(m[1]) as string | number | undefined;
      const right = value(m[3]) as string | number | undefined;
      if (left === undefined || right === undefined) return m[2] === '<>' ? left !== right : false;
      switch (m[2]) {
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
    }),
  );
}

export class DynamoTable {
  private readonly items = new Map<string, Item>();

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
    this.items.delete(k);
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
    const matching = [...this.items.values()]
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
