import { NodeClassNotReadyError } from '../../../shared/core/errors';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/launch/launch-node-claim';
import { createHandler as markOfferingUnavailable } from '../../../functions/launch/mark-offering-unavailable';
import { fakes, nodeClaim } from '../../fakes/lifecycle';
import { NodeClassHashVersion } from '../../../shared/core/model/hash';

describe('launchNodeClaim handler', () => {
  it('should launch once, reading only its claim, pool and class, and return the same instance when the Task is retried', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    // A launch reads its claim, pool and class: never the whole cluster (pods).
    f.cluster.snapshot = () => Promise.reject(new Error('launchNodeClaim read a whole-cluster snapshot'));
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

  it("should label the claim with every label of its instance type and offering, keep the claim's own labels, and record the EC2NodeClass hash", async () => {
    // Prepare
    const f = fakes();
    const c5 = f.cloud.types.find((t) => t.name === 'c5.large')!;
    c5.labels = { ...c5.labels, 'karpenter.k8s.aws/instance-family': 'c5', 'karpenter.k8s.aws/instance-cpu': '2', 'kubernetes.io/arch': 'amd64' };
    c5.offerings[0].zoneId = 'euw1-az1';
    f.cloud.types = [c5];
    f.cluster.claims.set('default-abcde', { ...nodeClaim('default-abcde'), labels: { 'karpenter.sh/nodepool': 'default', team: 'a' } });

    // Act
    await createHandler(f)({ nodeClaimName: 'default-abcde', deadlineMs: 1 });

    // Assess
    const claim = f.cluster.claims.get('default-abcde')!;
    expect(claim.labels).toEqual({
      'node.kubernetes.io/instance-type': 'c5.large',
      'karpenter.k8s.aws/instance-family': 'c5',
      'karpenter.k8s.aws/instance-cpu': '2',
      'kubernetes.io/arch': 'amd64',
      'topology.kubernetes.io/zone': 'eu-west-1a',
      'topology.k8s.aws/zone-id': 'euw1-az1',
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/nodepool': 'default',
      team: 'a',
    });
    expect(claim.annotations['karpenter.k8s.aws/ec2nodeclass-hash']).toMatch(/^\d+$/);
    expect(claim.annotations['karpenter.k8s.aws/ec2nodeclass-hash-version']).toBe(NodeClassHashVersion);
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

  it("should say on the claim that its node class cannot launch (Karpenter's NodeClassNotReady event)", async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));
    f.cloud.create = async () => {
      throw new NodeClassNotReadyError('EC2NodeClass default: AMISelector did not match any AMIs');
    };

    // Act
    await expect(createHandler(f)({ nodeClaimName: 'default-abcde', deadlineMs: 1 })).rejects.toMatchObject({ name: 'NodeClassNotReadyError' });

    // Assess
    expect(f.cluster.events).toEqual([
      'NodeClaim/default-abcde NodeClassNotReady: NodeClaim default-abcde event: EC2NodeClass default: AMISelector did not match any AMIs',
    ]);
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
