import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/launch/launch-node-claim';
import { createHandler as markOfferingUnavailable } from '../../../functions/launch/mark-offering-unavailable';
import { fakes, nodeClaim } from '../../fakes/lifecycle';

describe('launchNodeClaim handler', () => {
  it('should launch once and return the same instance when the Task is retried', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    const handler = createHandler(f);

    // Act
    const first = await handler({ nodeClaimName: 'default-abcde', deadlineMs: 1 });
    const retried = await handler({ nodeClaimName: 'default-abcde', deadlineMs: 1 });

    // Assess
    expect(f.cloud.calls).toEqual(['create default-abcde']);
    expect(retried).toEqual(first);
    expect(first).toMatchObject({ nodeClaimName: 'default-abcde', instanceType: 'c5.large', zone: 'eu-west-1a', capacityType: 'spot', deadlineMs: 1 });
    expect(f.cluster.claims.get('default-abcde')?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'c5.large',
      'karpenter.sh/capacity-type': 'spot',
    });
  });

  it('should throw InsufficientCapacityError and leave the failed offerings for MarkOfferingUnavailable', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    f.cloud.iceOnce = true;

    // Act
    const attempt = createHandler(f)({ nodeClaimName: 'default-abcde', deadlineMs: 1 });
    await expect(attempt).rejects.toMatchObject({ name: 'InsufficientCapacityError' });
    const marked = await markOfferingUnavailable(f)({ nodeClaimName: 'default-abcde', error: { Error: 'InsufficientCapacityError', Cause: '{}' } });

    // Assess
    expect(marked).toEqual({ nodeClaimName: 'default-abcde', markedUnavailable: 1 });
    expect(f.cluster.claims.has('default-abcde')).toBe(false);
    expect((await f.store.auditLog())[0]).toMatchObject({ kind: 'provisioning', action: 'launch-failed', nodeClaims: ['default-abcde'] });
  });

  it('should reject a task input without a claim name, naming the field', async () => {
    // Prepare
    const f = fakes();

    // Act
    const attempt = createHandler(f)({ deadlineMs: 1 });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: 'ExecutionInputInvalidError',
      message: expect.stringContaining('launchNodeClaim: task input is invalid: nodeClaimName'),
    });
    expect(f.cloud.calls).toEqual([]);
  });
});
