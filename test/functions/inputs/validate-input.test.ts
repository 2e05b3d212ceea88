import { describe, expect, it } from 'vitest';
import { createHandler as validateLaunchInput } from '../../../functions/launch/validate-launch-input';
import { createHandler as validateTerminateInput } from '../../../functions/terminate/validate-terminate-input';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';

describe('manual input validators', () => {
  it('should give a claim launch a 15 minute registration deadline', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde'));

    // Act
    const result = await validateLaunchInput(f)({ nodeClaimName: 'default-abcde' });

    // Assess
    expect(result).toEqual({ kind: 'claim', nodeClaimName: 'default-abcde', deadlineMs: f.clock.now() + 15 * 60_000 });
  });

  it('should list the known nodepools when the named one does not exist', async () => {
    // Prepare
    const f = fakes();

    // Act
    const attempt = validateLaunchInput(f)({ nodePool: 'gpu', count: 1 });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: 'ExecutionInputInvalidError',
      message: 'launch execution input nodePool: nodepool "gpu" does not exist (known: default)',
    });
  });

  it('should resolve an instance id to its claim and node', async () => {
    // Prepare
    const f = fakes();
    const pid = 'aws:///eu-west-1b/i-0123456789abcdef0';
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: pid }));
    f.cluster.nodes.set('n1', node('n1', { providerID: pid }));

    // Act
    const target = await validateTerminateInput(f)({ instanceId: 'i-0123456789abcdef0', reason: 'SpotInterrupted' });

    // Assess
    expect(target).toEqual({ nodeClaimName: 'default-abcde', providerID: pid, nodeName: 'n1', reason: 'SpotInterrupted' });
    expect(f.cluster.writes).toEqual([]);
  });

  it('should accept a claim being deleted (kubectl delete) and resolve its node', async () => {
    // Prepare
    const f = fakes();
    const pid = 'aws:///eu-west-1b/i-0123456789abcdef0';
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: pid, nodeName: 'n1' }));
    await f.cluster.deleteNodeClaim('default-abcde');

    // Act
    const target = await validateTerminateInput(f)({ nodeClaimName: 'default-abcde', reason: 'Deleted' });

    // Assess
    expect(f.cluster.claims.get('default-abcde')?.deletionTimestamp).toBeDefined();
    expect(target).toEqual({ nodeClaimName: 'default-abcde', nodeName: 'n1', providerID: pid, reason: 'Deleted' });
  });
});
