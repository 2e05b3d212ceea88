import { CreateTagsCommand, DescribeInstancesCommand, EC2Client, RebootInstancesCommand, TerminateInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2CloudProvider, ProviderIdInvalidError } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { isInstanceNotOwnedError, isNodeClaimNotFoundError, isThrottledError } from '../../../shared/core/errors';
import { CLUSTER, clusterInfo, ec2, nodeClaim, nodeClass, resetAndMockNodeClassDiscovery, T0 } from './fixtures';

const ID = 'i-0123456789abcdef0';
const owned = [
  { Key: 'kubernetes.io/cluster/demo', Value: 'owned' },
  { Key: 'karpenter.sh/nodepool', Value: 'general' },
];

function instance(over: Partial<Instance> = {}): Instance {
  return {
    InstanceId: ID,
    InstanceType: 'm5.large',
    Placement: { AvailabilityZone: 'us-east-1a' },
    State: { Name: 'running' },
    ImageId: 'ami-x86',
    SubnetId: 'subnet-a',
    SecurityGroups: [{ GroupId: 'sg-1' }],
    LaunchTime: new Date(T0),
    InstanceLifecycle: 'spot',
    Tags: owned,
    PrivateDnsName: 'ip-10-0-1-23.ec2.internal',
    ...over,
  };
}

function provider() {
  return new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-east-1' }),
    ssm: new SSMClient({ region: 'us-east-1' }),
    clusterName: CLUSTER,
    region: 'us-east-1',
    stateStore: new MemoryStateStore({ now: () => T0 }),
    clock: { now: () => T0 },
    catalog: [],
    cluster: clusterInfo,
  });
}

describe('Ec2CloudProvider.reboot (node repair)', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should reboot a running instance this cluster owns, and nothing else', async () => {
    // Prepare
    ec2.on(RebootInstancesCommand).resolves({});
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [instance()] }] })
      .resolvesOnce({ Reservations: [{ Instances: [instance({ Tags: [{ Key: 'kubernetes.io/cluster/other', Value: 'owned' }] })] }] })
      .resolvesOnce({ Reservations: [{ Instances: [instance({ State: { Name: 'stopped' } })] }] });
    // Act
    await provider().reboot(`aws:///us-east-1a/${ID}`);
    const foreign = await provider()
      .reboot(`aws:///us-east-1a/${ID}`)
      .catch((e: unknown) => e);
    const stopped = await provider()
      .reboot(`aws:///us-east-1a/${ID}`)
      .catch((e: unknown) => e);
    // Assess
    expect(ec2.commandCalls(RebootInstancesCommand).map((c) => c.args[0].input)).toEqual([{ InstanceIds: [ID] }]);
    expect(isInstanceNotOwnedError(foreign)).toBe(true);
    expect(isNodeClaimNotFoundError(stopped)).toBe(true);
  });
});

describe('Ec2CloudProvider.delete', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it("should terminate an instance that carries this cluster's ownership tags", async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance()] }] });
    ec2.on(TerminateInstancesCommand).resolves({});
    // Act
    await provider().delete(`aws:///us-east-1a/${ID}`);
    // Assess
    expect(ec2.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input)).toEqual([{ InstanceIds: [ID] }]);
  });

  it.each([
    ['no tags at all', []],
    [
      'another cluster',
      [
        { Key: 'kubernetes.io/cluster/other', Value: 'owned' },
        { Key: 'karpenter.sh/nodepool', Value: 'general' },
      ],
    ],
    [
      'a shared (not owned) cluster tag',
      [
        { Key: 'kubernetes.io/cluster/demo', Value: 'shared' },
        { Key: 'karpenter.sh/nodepool', Value: 'general' },
      ],
    ],
    [
      'a managed node group instance (cluster tag, no nodepool tag)',
      [
        { Key: 'kubernetes.io/cluster/demo', Value: 'owned' },
        { Key: 'eks:nodegroup-name', Value: 'ng-1' },
      ],
    ],
  ])('should refuse to terminate a foreign instance with %s and never call TerminateInstances', async (_what, tags) => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance({ Tags: tags })] }] });
    // Act
    const act = provider().delete(`aws:///us-east-1a/${ID}`);
    // Assess
    await expect(act).rejects.toSatisfy(isInstanceNotOwnedError);
    await expect(act).rejects.toThrow(/refusing to terminate/);
    expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
  });

  it('should report NodeClaimNotFoundError for an instance already shutting down or unknown to EC2', async () => {
    // Prepare
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [instance({ State: { Name: 'shutting-down' } })] }] })
      .rejectsOnce(Object.assign(new Error(`The instance ID '${ID}' does not exist`), { name: 'InvalidInstanceID.NotFound' }));
    const p = provider();
    // Act
    const shuttingDown = p.delete(`aws:///us-east-1a/${ID}`);
    await expect(shuttingDown).rejects.toSatisfy(isNodeClaimNotFoundError);
    const unknown = p.delete(`aws:///us-east-1a/${ID}`);
    // Assess
    await expect(unknown).rejects.toSatisfy(isNodeClaimNotFoundError);
    expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
  });

  it('should map a throttled TerminateInstances to CloudProviderThrottledError', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance()] }] });
    ec2.on(TerminateInstancesCommand).rejects(Object.assign(new Error('Request limit exceeded.'), { name: 'RequestLimitExceeded' }));
    // Act
    const act = provider().delete(`aws:///us-east-1a/${ID}`);
    // Assess
    await expect(act).rejects.toSatisfy(isThrottledError);
  });

  it('should reject a malformed providerID before calling EC2', async () => {
    // Act
    const act = provider().delete('gce://project/zone/name');
    // Assess
    await expect(act).rejects.toThrow(ProviderIdInvalidError);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(0);
  });
});

describe('Ec2CloudProvider.get / list', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should map an EC2 instance to a CloudInstance', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance()] }] });
    // Act
    const got = await provider().get(`aws:///us-east-1a/${ID}`);
    // Assess
    expect(got).toEqual({
      instanceId: ID,
      providerID: `aws:///us-east-1a/${ID}`,
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
      imageId: 'ami-x86',
      subnetId: 'subnet-a',
      securityGroupIds: ['sg-1'],
      launchTime: T0,
      state: 'running',
      tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'general' },
      privateDnsName: 'ip-10-0-1-23.ec2.internal',
    });
  });

  it('should tell an instance EC2 reports terminated from one it does not know (yet): both NodeClaimNotFoundError, only the first terminated', async () => {
    // Prepare
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [instance({ State: { Name: 'terminated' } })] }] })
      .rejectsOnce(Object.assign(new Error(`The instance ID '${ID}' does not exist`), { name: 'InvalidInstanceID.NotFound' }));
    const p = provider();
    // Act
    const terminated = await p.get(`aws:///us-east-1a/${ID}`).catch((e: unknown) => e);
    const unknown = await p.get(`aws:///us-east-1a/${ID}`).catch((e: unknown) => e);
    // Assess
    expect(terminated).toSatisfy(isNodeClaimNotFoundError);
    expect(terminated).toMatchObject({ terminated: true });
    expect(unknown).toSatisfy(isNodeClaimNotFoundError);
    expect(unknown).toMatchObject({ terminated: false });
  });

  it('should list owned instances across pages with the ownership filters and without terminated ones', async () => {
    // Prepare
    ec2
      .on(DescribeInstancesCommand)
      .resolvesOnce({ Reservations: [{ Instances: [instance()] }], NextToken: 'page2' })
      .resolvesOnce({ Reservations: [{ Instances: [instance({ InstanceId: 'i-0fedcba9876543210', InstanceLifecycle: undefined })] }] });
    // Act
    const all = await provider().list();
    // Assess
    expect(all.map((i) => [i.instanceId, i.capacityType])).toEqual([
      [ID, 'spot'],
      ['i-0fedcba9876543210', 'on-demand'],
    ]);
    const calls = ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input);
    expect(calls[1].NextToken).toBe('page2');
    expect(calls[0].Filters).toEqual([
      { Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned'] },
      { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ]);
  });
});

describe('Ec2CloudProvider.describeOwned', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should ask EC2 for the given ids with the ownership filters, in any state, by filter so an unknown id is no error', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance({ State: { Name: 'terminated' } })] }] });
    // Act
    const found = await provider().describeOwned({ instanceIds: [ID, 'i-0eeeeeeeeeeeeeeee', ID] });
    // Assess
    expect(found.map((i) => [i.instanceId, i.state])).toEqual([[ID, 'terminated']]);
    expect(ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input.Filters)).toEqual([
      [
        { Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned'] },
        { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
        { Name: 'instance-id', Values: [ID, 'i-0eeeeeeeeeeeeeeee'] },
      ],
    ]);
  });

  it("should find the live instances carrying a claim's tag", async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    // Act
    await provider().describeOwned({ nodeClaim: 'general-abcde' });
    // Assess
    expect(ec2.commandCalls(DescribeInstancesCommand)[0].args[0].input.Filters).toEqual([
      { Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned'] },
      { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
      { Name: 'tag:karpenter.sh/nodeclaim', Values: ['general-abcde'] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ]);
  });

  it('should ask nothing of EC2 for no ids', async () => {
    // Act
    const found = await provider().describeOwned({ instanceIds: [] });
    // Assess
    expect(found).toEqual([]);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toEqual([]);
  });
});

describe('Ec2CloudProvider.isDrifted', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());
  const claim = () => nodeClaim([], { status: { providerID: `aws:///us-east-1a/${ID}`, conditions: [] } });

  it.each([
    ['nothing changed', {}, undefined],
    ['the AMI is no longer selected', { ImageId: 'ami-old' }, 'AMIDrift'],
    ['the subnet is no longer selected', { SubnetId: 'subnet-gone' }, 'SubnetDrift'],
    ['the security groups differ', { SecurityGroups: [{ GroupId: 'sg-1' }, { GroupId: 'sg-2' }] }, 'SecurityGroupDrift'],
  ])('should report %s', async (_what, over, expected) => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance(over)] }] });
    // Act
    const drift = await provider().isDrifted(claim(), nodeClass());
    // Assess
    expect(drift).toBe(expected);
  });
});

describe("tagging a registered node's instance (Karpenter's tagging controller)", () => {
  beforeEach(() => ec2.reset());

  it('should add only the tags the instance lacks, with the cluster tag, and refuse an instance of another cluster', async () => {
    // Prepare: a Name from the node class's spec.tags is already there
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [instance({ Tags: [...owned, { Key: 'Name', Value: 'team-a' }] })] }] });
    ec2.on(CreateTagsCommand).resolves({});
    // Act
    await provider().tagInstance(`aws:///us-east-1a/${ID}`, { Name: 'ip-10-0-1-23.ec2.internal', 'karpenter.sh/nodeclaim': 'general-abcde' });
    ec2
      .on(DescribeInstancesCommand)
      .resolves({ Reservations: [{ Instances: [instance({ Tags: [{ Key: 'kubernetes.io/cluster/other', Value: 'owned' }] })] }] });
    const foreign = await provider()
      .tagInstance(`aws:///us-east-1a/${ID}`, { Name: 'x' })
      .catch((e: unknown) => e);
    // Assess
    expect(ec2.commandCalls(CreateTagsCommand).map((c) => c.args[0].input)).toEqual([
      {
        Resources: [ID],
        Tags: [
          { Key: 'karpenter.sh/nodeclaim', Value: 'general-abcde' },
          { Key: 'eks:eks-cluster-name', Value: CLUSTER },
        ],
      },
    ]);
    expect(isInstanceNotOwnedError(foreign)).toBe(true);
  });
});
