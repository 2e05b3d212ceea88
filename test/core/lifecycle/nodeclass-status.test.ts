/** EC2NodeClass status (issue #13 item 2): written by garbage collection; NodePools follow its Ready. */
import { describe, expect, it } from 'vitest';
import { desiredNodePoolStatus, reconcileNodeClassStatuses } from '../../../shared/core/lifecycle';
import { fakes } from '../../fakes/lifecycle';

describe('reconcileNodeClassStatuses', () => {
  it('should write what the node class resolves to, Ready when every condition is, and nothing when unchanged', async () => {
    // Prepare
    const f = fakes();
    // Act
    const first = await reconcileNodeClassStatuses(f, await f.cluster.snapshot());
    const again = await reconcileNodeClassStatuses(f, await f.cluster.snapshot());
    // Assess
    expect(first).toEqual(['default']);
    expect(again).toEqual([]);
    const nc = f.cluster.nodeClasses[0];
    expect(nc.status).toMatchObject({ subnets: [{ id: 'subnet-a', zone: 'us-east-1a' }], securityGroups: [{ id: 'sg-1' }], instanceProfile: 'profile' });
    expect(nc.ready).toEqual({ status: 'True', reason: 'Ready', message: '' });
  });

  it("should make the NodePool not Ready with the node class's reason when a selector matches nothing", async () => {
    // Prepare
    const f = fakes();
    f.cloud.nodeClassReport.conditions[0] = {
      type: 'SubnetsReady',
      status: 'False',
      reason: 'SubnetsNotFound',
      message: 'SubnetSelector did not match any Subnets',
    };
    // Act
    await reconcileNodeClassStatuses(f, await f.cluster.snapshot());
    const pool = desiredNodePoolStatus(f.cluster.nodePools[0], await f.cluster.snapshot());
    // Assess
    expect(f.cluster.nodeClasses[0].ready).toEqual({ status: 'False', reason: 'UnhealthyDependents', message: 'SubnetsReady=False' });
    expect(pool.conditions.find((c) => c.type === 'NodeClassReady')).toEqual({
      type: 'NodeClassReady',
      status: 'False',
      reason: 'UnhealthyDependents',
      message: 'SubnetsReady=False',
    });
    expect(pool.conditions.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it('should log and go on when the cloud cannot answer', async () => {
    // Prepare
    const f = fakes();
    f.cloud.nodeClassStatus = async () => {
      throw new Error('RequestLimitExceeded');
    };
    // Act
    const written = await reconcileNodeClassStatuses(f, await f.cluster.snapshot());
    // Assess
    expect(written).toEqual([]);
    expect(f.cluster.nodeClassStatusWrites).toEqual([]);
    expect(f.log.messages()).toContain('could not write ec2nodeclass status');
  });
});
