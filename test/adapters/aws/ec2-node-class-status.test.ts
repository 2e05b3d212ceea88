/** EC2NodeClass status as Karpenter's nodeclass controller writes it (issue #13 item 2), from Ec2CloudProvider. */
import { DescribeSecurityGroupsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { CLUSTER, clusterInfo, ec2, nodeClass, resetAndMockNodeClassDiscovery, T0 } from './fixtures';

const provider = () =>
  new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-east-1' }),
    ssm: new SSMClient({ region: 'us-east-1' }),
    clusterName: CLUSTER,
    region: 'us-east-1',
    stateStore: new MemoryStateStore({ now: () => T0 }),
    clock: { now: () => T0 },
    catalog: [],
    cluster: clusterInfo,
  });
const conditions = (s: { conditions: { type: string; status: string; reason: string }[] }) => s.conditions.map((c) => [c.type, c.status, c.reason]);

describe('Ec2CloudProvider.nodeClassStatus', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should report what the selectors resolve to and every condition True', async () => {
    // Act
    const status = await provider().nodeClassStatus(nodeClass());
    // Assess
    expect(status.subnets).toEqual([
      { id: 'subnet-a', zone: 'us-east-1a', zoneID: 'use1-az1' },
      { id: 'subnet-b', zone: 'us-east-1b', zoneID: 'use1-az2' },
    ]);
    expect(status.securityGroups).toEqual([{ id: 'sg-1', name: 'nodes' }]);
    expect(status.amis?.map((a) => a.id)).toEqual(expect.arrayContaining(['ami-arm', 'ami-x86']));
    expect(status.instanceProfile).toBe('KarpenterNodeInstanceProfile-demo');
    expect(conditions(status)).toEqual([
      ['SubnetsReady', 'True', 'SubnetsReady'],
      ['SecurityGroupsReady', 'True', 'SecurityGroupsReady'],
      ['AMIsReady', 'True', 'AMIsReady'],
      ['InstanceProfileReady', 'True', 'InstanceProfileReady'],
    ]);
  });

  it("should report Karpenter's reasons for selectors that match nothing, without throwing", async () => {
    // Prepare
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
    ec2.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [] });
    // Act
    const status = await provider().nodeClassStatus(nodeClass({ instanceProfile: undefined, role: undefined }));
    // Assess
    expect(status.conditions.slice(0, 2)).toEqual([
      { type: 'SubnetsReady', status: 'False', reason: 'SubnetsNotFound', message: 'SubnetSelector did not match any Subnets' },
      { type: 'SecurityGroupsReady', status: 'False', reason: 'SecurityGroupsNotFound', message: 'SecurityGroupSelector did not match any SecurityGroups' },
    ]);
    expect(conditions(status)[3]).toEqual(['InstanceProfileReady', 'False', 'InstanceProfileNotReady']);
  });

  it('should throw on an EC2 API error (nothing is written; the next run tries again)', async () => {
    // Prepare
    ec2.on(DescribeSubnetsCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'RequestLimitExceeded' }));
    // Act / Assess
    await expect(provider().nodeClassStatus(nodeClass())).rejects.toThrow();
  });
});
