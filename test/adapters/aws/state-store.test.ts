import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoStateStore, MemoryStateStore, StateStoreInputInvalidError } from '../../../shared/adapters/aws/state-store';
import { epochMs } from '../../../shared/core/time';

const T0 = epochMs(Date.UTC(2026, 10, 21, 12, 0, 0));
const fakeClock = (start = T0) => {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now = epochMs(now + ms);
    },
  };
};
const offering = { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' as const };

describe('MemoryStateStore', () => {
  it('should forget an unavailable offering once its TTL has passed', async () => {
    // Prepare
    const clock = fakeClock();
    const store = new MemoryStateStore(clock);
    await store.markUnavailable(offering, 180, 'InsufficientInstanceCapacity');
    // Act
    const during = await store.unavailableOfferings();
    clock.advance(180_001);
    const after = await store.unavailableOfferings();
    // Assess
    expect(during).toEqual([{ ...offering, reason: 'InsufficientInstanceCapacity', expiresAt: T0 + 180_000 }]);
    expect(after).toEqual([]);
  });

  it('should give a lease to one holder at a time until it expires or is released', async () => {
    // Prepare
    const clock = fakeClock();
    const store = new MemoryStateStore(clock);
    // Act
    const first = await store.acquireLease('provisioner', 'a', 60);
    const rival = await store.acquireLease('provisioner', 'b', 60);
    const renew = await store.acquireLease('provisioner', 'a', 60);
    clock.advance(60_001);
    const afterExpiry = await store.acquireLease('provisioner', 'b', 60);
    await store.releaseLease('provisioner', 'a'); // not the holder any more: no effect
    const stillHeld = await store.acquireLease('provisioner', 'a', 60);
    await store.releaseLease('provisioner', 'b');
    const afterRelease = await store.acquireLease('provisioner', 'a', 60);
    // Assess
    expect([first, rival, renew, afterExpiry, stillHeld, afterRelease]).toEqual([true, false, true, true, false, true]);
  });

  it('should return audit records oldest first, filtered by kind and limited to the newest', async () => {
    // Prepare
    const clock = fakeClock();
    const store = new MemoryStateStore(clock);
    await store.audit({ at: epochMs(T0 - 3000), kind: 'provisioning', action: 'launched' });
    await store.audit({ at: epochMs(T0 - 2000), kind: 'disruption', action: 'disrupting' });
    await store.audit({ at: epochMs(T0 - 1000), kind: 'provisioning', action: 'skipped' });
    // Act
    const all = await store.auditLog();
    const provisioning = await store.auditLog({ kind: 'provisioning', limit: 1 });
    // Assess
    expect(all.map((r) => r.action)).toEqual(['launched', 'disrupting', 'skipped']);
    expect(provisioning.map((r) => r.action)).toEqual(['skipped']);
  });

  it('should reject a non-positive TTL with a clear error and store nothing', async () => {
    // Prepare
    const store = new MemoryStateStore(fakeClock());
    // Act
    const act = store.markUnavailable(offering, 0, 'x');
    // Assess
    await expect(act).rejects.toThrow(StateStoreInputInvalidError);
    await expect(act).rejects.toThrow(/ttlSeconds/);
    expect(await store.unavailableOfferings()).toEqual([]);
  });
});

describe('DynamoStateStore', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeEach(() => ddb.reset());
  const make = (clock = fakeClock()) =>
    new DynamoStateStore({
      client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
      tableName: 'nodewright-state',
      clock,
      newId: () => 'id1',
    });

  it('should report DynamoDB throttling as StateStoreThrottledError, the name the state machines retry', async () => {
    // Prepare
    ddb.on(PutCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }));
    const store = make();
    // Act
    const write = store.acquireLease('controller', 'me', 30);
    // Assess
    await expect(write).rejects.toMatchObject({ name: 'StateStoreThrottledError' });
  });

  it('should write an ICE mark with a TTL attribute in epoch seconds', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    const store = make();
    // Act
    await store.markUnavailable(offering, 180, 'InsufficientInstanceCapacity');
    // Assess
    const input = ddb.commandCalls(PutCommand)[0].args[0].input;
    expect(input.TableName).toBe('nodewright-state');
    expect(input.Item).toMatchObject({ pk: 'ICE', sk: 'spot:m5.large:us-east-1a', expiresAtMs: T0 + 180_000, expiresAtSec: (T0 + 180_000) / 1000 });
  });

  it('should skip expired ICE marks DynamoDB has not deleted yet, across pages', async () => {
    // Prepare
    const clock = fakeClock();
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ ...offering, reason: 'r', expiresAtMs: T0 + 1000 }], LastEvaluatedKey: { pk: 'ICE', sk: 'x' } })
      .resolvesOnce({ Items: [{ ...offering, zone: 'us-east-1b', reason: 'r', expiresAtMs: T0 - 1 }] });
    const store = make(clock);
    // Act
    const out = await store.unavailableOfferings();
    // Assess
    expect(out).toEqual([{ ...offering, reason: 'r', expiresAt: T0 + 1000 }]);
    const calls = ddb.commandCalls(QueryCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1].args[0].input.ExclusiveStartKey).toEqual({ pk: 'ICE', sk: 'x' });
  });

  it('should acquire a lease with a conditional write and report false when another holder has it', async () => {
    // Prepare
    ddb
      .on(PutCommand)
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    const store = make();
    // Act
    const first = await store.acquireLease('provisioner', 'a', 60);
    const second = await store.acquireLease('provisioner', 'b', 60);
    // Assess
    expect([first, second]).toEqual([true, false]);
    const input = ddb.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk) OR holder = :holder OR expiresAtMs <= :now');
    expect(input.ExpressionAttributeValues).toEqual({ ':holder': 'a', ':now': T0 });
    expect(input.Item).toMatchObject({ pk: 'LEASE#provisioner', holder: 'a', expiresAtMs: T0 + 60_000 });
  });

  it('should take an audit write repeated after a lost answer (the condition fails on its own item) as written', async () => {
    // Prepare: the SDK retried a put that DynamoDB had applied; the retry's attribute_not_exists condition fails
    ddb.on(PutCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    const store = make();
    // Act
    const write = store.audit({ at: T0, kind: 'disruption', action: 'disrupting', reason: 'empty' });
    // Assess
    await expect(write).resolves.toBeUndefined();
  });

  it('should release only its own lease and ignore a lease held by someone else', async () => {
    // Prepare
    ddb.on(DeleteCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    const store = make();
    // Act
    const act = store.releaseLease('provisioner', 'a');
    // Assess
    await expect(act).resolves.toBeUndefined();
    expect(ddb.commandCalls(DeleteCommand)[0].args[0].input.ConditionExpression).toBe('holder = :holder');
  });

  it('should partition audit records per UTC day and read every day of the window', async () => {
    // Prepare
    const clock = fakeClock();
    ddb.on(PutCommand).resolves({});
    ddb
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'AUDIT#2026-11-20' } })
      .resolves({ Items: [{ record: { at: T0 - 20 * 3600_000, kind: 'provisioning', action: 'launched' }, expiresAtMs: T0 + 1e9 }] });
    ddb
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'AUDIT#2026-11-21' } })
      .resolves({ Items: [{ record: { at: epochMs(T0 - 1000), kind: 'provisioning', action: 'skipped' }, expiresAtMs: T0 + 1e9 }] });
    const store = make(clock);
    // Act
    await store.audit({ at: T0, kind: 'disruption', action: 'disrupting', reason: undefined, detail: { node: undefined, count: 2 } });
    const log = await store.auditLog({ sinceMs: T0 - 24 * 3600_000 });
    // Assess
    expect(ddb.commandCalls(PutCommand)[0].args[0].input.Item).toMatchObject({ pk: 'AUDIT#2026-11-21', sk: `00${T0}#id1`, kind: 'disruption' });
    expect(ddb.commandCalls(PutCommand)[0].args[0].input.Item?.record).toStrictEqual({
      at: T0,
      kind: 'disruption',
      action: 'disrupting',
      detail: { count: 2 },
    });
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues?.[':pk'])).toEqual(['AUDIT#2026-11-20', 'AUDIT#2026-11-21']);
    expect(log.map((r) => r.action)).toEqual(['launched', 'skipped']);
  });
});
