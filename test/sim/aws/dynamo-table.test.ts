import { describe, expect, it } from 'vitest';
import { DynamoTable, evaluate } from '../../../shared/sim/aws/dynamo-table';

describe('simulated DynamoDB table', () => {
  it('should honour a lease condition like DynamoDB (taken, same holder, or expired)', () => {
    // Prepare
    const table = new DynamoTable();
    const condition = 'attribute_not_exists(pk) OR holder = :holder OR expiresAtMs <= :now';
    table.put({
      Item: { pk: 'LEASE#p', sk: 'LEASE', holder: 'a', expiresAtMs: 100 },
      ConditionExpression: condition,
      ExpressionAttributeValues: { ':holder': 'a', ':now': 0 },
    });
    // Act
    const other = () =>
      table.put({
        Item: { pk: 'LEASE#p', sk: 'LEASE', holder: 'b', expiresAtMs: 200 },
        ConditionExpression: condition,
        ExpressionAttributeValues: { ':holder': 'b', ':now': 50 },
      });
    const afterExpiry = () =>
      table.put({
        Item: { pk: 'LEASE#p', sk: 'LEASE', holder: 'b', expiresAtMs: 300 },
        ConditionExpression: condition,
        ExpressionAttributeValues: { ':holder': 'b', ':now': 150 },
      });
    // Assess
    expect(other).toThrow(expect.objectContaining({ name: 'ConditionalCheckFailedException' }));
    expect(afterExpiry).not.toThrow();
    expect(table.get({ Key: { pk: 'LEASE#p', sk: 'LEASE' } }).Item?.holder).toBe('b');
  });

  it('should query by key condition, filter after the key, and page', () => {
    // Prepare
    const table = new DynamoTable();
    for (let i = 0; i < 5; i++) table.put({ Item: { pk: 'ICE', sk: `k${i}`, expiresAtMs: i * 10, kind: i % 2 ? 'x' : 'y' } });
    table.put({ Item: { pk: 'OTHER', sk: 'k9', expiresAtMs: 1000 } });
    // Act
    const first = table.query({
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      FilterExpression: 'expiresAtMs > :now AND #kind = :kind',
      ExpressionAttributeValues: { ':pk': 'ICE', ':since': 'k1', ':now': 15, ':kind': 'y' },
      ExpressionAttributeNames: { '#kind': 'kind' },
      Limit: 2,
    });
    const rest = table.query({
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      FilterExpression: 'expiresAtMs > :now AND #kind = :kind',
      ExpressionAttributeValues: { ':pk': 'ICE', ':since': 'k1', ':now': 15, ':kind': 'y' },
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExclusiveStartKey: first.LastEvaluatedKey,
    });
    // Assess
    expect(first.Items.map((i) => i.sk)).toEqual(['k2']);
    expect(first.LastEvaluatedKey).toEqual({ pk: 'ICE', sk: 'k2' });
    expect(rest.Items.map((i) => i.sk)).toEqual(['k4']);
  });

  it('should refuse an expression it cannot evaluate with a named error', () => {
    // Act / Assess
    expect(() => evaluate('begins_with(sk, :p)', {}, { ':p': 'a' })).toThrow(expect.objectContaining({ name: 'DynamoExpressionUnsupportedError' }));
  });
});
