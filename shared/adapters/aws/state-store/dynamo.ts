import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { StateStoreThrottledError } from '../../../core/errors';
import type { Clock } from '../../../core/ports/clock';
import type { AuditRecord, LeaseInfo, OfferingKey, StateStore, StoredPrices, UnavailableOffering } from '../../../core/ports/state-store';
import {
  auditDay,
  auditDays,
  DEFAULT_AUDIT_RETENTION_DAYS,
  DEFAULT_AUDIT_WINDOW_MS,
  offeringKey,
  requireName,
  requirePositiveTtl,
  selectAudit,
} from './semantics';
import { epochMs, type EpochMs } from '../../../core/time';

/**
 * The single-table layout (see docs/aws-adapters.md). Key schema: `pk` (S, hash) + `sk` (S, range);
 * TTL attribute `expiresAtSec` (epoch seconds). DynamoDB deletes expired items lazily (up to days later),
 * so every read also filters on `expiresAtMs`.
 */
const StateTable = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAtSec',
  icePartition: 'ICE',
  leasePrefix: 'LEASE#',
  leaseSortKey: 'LEASE',
  auditPrefix: 'AUDIT#',
  pricesPrefix: 'PRICES#',
  onDemandSortKey: 'ON_DEMAND',
} as const;

export interface DynamoStateStoreDeps {
  client: DynamoDBDocumentClient;
  /**
   * For the lease calls (acquire, read, release), when given: a client with few attempts and a short request
   * timeout, so a throttled or hung table answers a renewal within seconds and the holder tries again within the
   * lease's TTL — the default client's 3 attempts × 15 s could outlive the lease they renew.
   */
  leaseClient?: DynamoDBDocumentClient;
  tableName: string;
  clock: Pick<Clock, 'now'>;
  /** How long audit records are kept (TTL); default 30 days. */
  auditRetentionDays?: number;
  /** Unique suffix of audit sort keys; injectable for deterministic tests. */
  newId?: () => string;
}

const isConditionFailed = (e: unknown): boolean => e instanceof Error && e.name === 'ConditionalCheckFailedException';

const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** StateStore on one DynamoDB table: ICE marks with TTL, leases by conditional writes, audit partitioned per UTC day. */
export class DynamoStateStore implements StateStore {
  /** Every request: DynamoDB throttling (after the SDK's own retries) becomes StateStoreThrottledError, which the state machines retry. */
  private async send(
    command: PutCommand | DeleteCommand | GetCommand | QueryCommand,
    client = this.deps.client,
  ): Promise<{ Item?: Record<string, unknown>; Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }> {
    try {
      return (await client.send(command as never)) as never;
    } catch (e) {
      const name = (e as { name?: string } | null)?.name ?? '';
      if (THROTTLED.has(name)) throw new StateStoreThrottledError(`state table ${this.deps.tableName}: ${name}`, { cause: e });
      throw e;
    }
  }

  private readonly retentionDays: number;
  private readonly newId: () => string;
  private readonly leaseClient: DynamoDBDocumentClient;

  constructor(private readonly deps: DynamoStateStoreDeps) {
    requireName('DynamoStateStore', 'tableName', deps.tableName);
    this.retentionDays = deps.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS;
    this.newId = deps.newId ?? randomUUID;
    this.leaseClient = deps.leaseClient ?? deps.client;
  }

  async markUnavailable(offering: OfferingKey, ttlSeconds: number, reason: string): Promise<void> {
    requirePositiveTtl('markUnavailable', ttlSeconds);
    const expiresAtMs = this.deps.clock.now() + ttlSeconds * 1000;
    await this.send(
      new PutCommand({
        TableName: this.deps.tableName,
        Item: {
          pk: StateTable.icePartition,
          sk: offeringKey(offering),
          instanceType: offering.instanceType,
          zone: offering.zone,
          capacityType: offering.capacityType,
          reason,
          expiresAtMs,
          [StateTable.ttlAttribute]: Math.ceil(expiresAtMs / 1000),
        },
      }),
    );
  }

  async unavailableOfferings(): Promise<UnavailableOffering[]> {
    const now = this.deps.clock.now();
    const items = await this.queryAll({
      TableName: this.deps.tableName,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'expiresAtMs > :now',
      ExpressionAttributeValues: { ':pk': StateTable.icePartition, ':now': now },
    });
    return items
      .filter((i) => Number(i.expiresAtMs) > now)
      .map((i) => ({
        instanceType: String(i.instanceType),
        zone: String(i.zone),
        capacityType: i.capacityType as UnavailableOffering['capacityType'],
        reason: String(i.reason ?? ''),
        expiresAt: epochMs(Number(i.expiresAtMs)),
      }));
  }

  async acquireLease(name: string, holder: string, ttlSeconds: number, untilMs?: EpochMs): Promise<boolean> {
    requireName('acquireLease', 'name', name);
    requireName('acquireLease', 'holder', holder);
    requirePositiveTtl('acquireLease', ttlSeconds);
    const now = this.deps.clock.now();
    const expiresAtMs = now + ttlSeconds * 1000;
    try {
      await this.send(
        new PutCommand({
          TableName: this.deps.tableName,
          Item: {
            pk: StateTable.leasePrefix + name,
            sk: StateTable.leaseSortKey,
            holder,
            expiresAtMs,
            ...(untilMs !== undefined ? { untilMs } : {}),
            [StateTable.ttlAttribute]: Math.ceil(expiresAtMs / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR holder = :holder OR expiresAtMs <= :now',
          ExpressionAttributeValues: { ':holder': holder, ':now': now },
        }),
        this.leaseClient,
      );
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    try {
      await this.send(
        new DeleteCommand({
          TableName: this.deps.tableName,
          Key: { pk: StateTable.leasePrefix + name, sk: StateTable.leaseSortKey },
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: { ':holder': holder },
        }),
        this.leaseClient,
      );
    } catch (e) {
      // Another holder owns it (or nobody does): releasing is then a no-op.
      if (!isConditionFailed(e)) throw e;
    }
  }

  async readLease(name: string): Promise<LeaseInfo | undefined> {
    const out = await this.send(
      new GetCommand({
        TableName: this.deps.tableName,
        Key: { pk: StateTable.leasePrefix + name, sk: StateTable.leaseSortKey },
        ConsistentRead: true,
      }),
      this.leaseClient,
    );
    const item = out.Item as { holder?: string; expiresAtMs?: number; untilMs?: number } | undefined;
    if (!item?.holder || typeof item.expiresAtMs !== 'number' || item.expiresAtMs <= this.deps.clock.now()) return undefined;
    return { holder: item.holder, expiresAt: epochMs(item.expiresAtMs), ...(typeof item.untilMs === 'number' ? { untilMs: epochMs(item.untilMs) } : {}) };
  }

  /** One item per region (≈ 30 KB for ~1,000 types, under DynamoDB's 400 KB item limit). */
  async putOnDemandPrices(region: string, prices: StoredPrices): Promise<void> {
    requireName('putOnDemandPrices', 'region', region);
    await this.send(
      new PutCommand({
        TableName: this.deps.tableName,
        Item: { pk: StateTable.pricesPrefix + region, sk: StateTable.onDemandSortKey, prices: prices.prices, fetchedAtMs: prices.fetchedAt },
      }),
    );
  }

  async onDemandPrices(region: string): Promise<StoredPrices | undefined> {
    const out = await this.send(
      new GetCommand({ TableName: this.deps.tableName, Key: { pk: StateTable.pricesPrefix + region, sk: StateTable.onDemandSortKey } }),
    );
    const item = out.Item as { prices?: Record<string, unknown>; fetchedAtMs?: unknown } | undefined;
    if (!item?.prices || typeof item.fetchedAtMs !== 'number') return undefined;
    const prices: Record<string, number> = {};
    for (const [k, v] of Object.entries(item.prices)) if (typeof v === 'number' && Number.isFinite(v) && v > 0) prices[k] = v;
    return { prices, fetchedAt: epochMs(item.fetchedAtMs) };
  }

  async audit(record: AuditRecord): Promise<void> {
    const expiresAtMs = record.at + this.retentionDays * 24 * 3600 * 1000;
    await this.send(
      new PutCommand({
        TableName: this.deps.tableName,
        Item: {
          pk: StateTable.auditPrefix + auditDay(record.at),
          sk: `${String(record.at).padStart(15, '0')}#${this.newId()}`,
          kind: record.kind,
          // The document client refuses undefined values unless configured to drop them; drop them here.
          record: JSON.parse(JSON.stringify(record)) as AuditRecord,
          expiresAtMs,
          [StateTable.ttlAttribute]: Math.ceil(expiresAtMs / 1000),
        },
        // A later write must never overwrite an earlier decision.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ).catch((e: unknown) => {
      // The sort key carries a fresh id, so an existing item is this very write: an earlier attempt that was
      // applied but whose answer was lost (a timeout), repeated by the SDK's retry. The record is there.
      if (!isConditionFailed(e)) throw e;
    });
  }

  async auditLog(query?: { sinceMs?: number; kind?: AuditRecord['kind']; limit?: number }): Promise<AuditRecord[]> {
    const now = this.deps.clock.now();
    const oldest = now - this.retentionDays * 24 * 3600 * 1000;
    const since = Math.max(query?.sinceMs ?? now - DEFAULT_AUDIT_WINDOW_MS, oldest);
    const records: AuditRecord[] = [];
    for (const day of auditDays(since, now)) {
      const values: Record<string, unknown> = { ':pk': StateTable.auditPrefix + day, ':since': String(since).padStart(15, '0'), ':now': now };
      let filter = 'expiresAtMs > :now';
      if (query?.kind) {
        filter += ' AND #kind = :kind';
        values[':kind'] = query.kind;
      }
      const items = await this.queryAll({
        TableName: this.deps.tableName,
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        FilterExpression: filter,
        ExpressionAttributeValues: values,
        ...(query?.kind ? { ExpressionAttributeNames: { '#kind': 'kind' } } : {}),
      });
      for (const i of items) if (Number(i.expiresAtMs) > now && i.record) records.push(i.record as AuditRecord);
    }
    return selectAudit(records, now, { ...query, sinceMs: since });
  }

  private async queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
      out.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
