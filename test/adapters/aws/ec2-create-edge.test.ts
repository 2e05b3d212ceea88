import { CreateFleetCommand, CreateLaunchTemplateCommand, DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { al2023UserData, clientTokenFor, Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { isInsufficientCapacityError, isNodeClassNotReadyError } from '../../../shared/core/errors';
import { CLUSTER, clusterInfo, ec2, instanceType, launchRequest, nodeClass, resetAndMockNodeClassDiscovery, ssm, T0 } from './fixtures';

function provider(store = new MemoryStateStore({ now: () => T0 }), over: Partial<ConstructorParameters<typeof Ec2CloudProvider>[0]> = {}) {
  return new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-east-1' }),
    ssm: new SSMClient({ region: 'us-east-1' }),
    clusterName: CLUSTER,
    region: 'us-east-1',
    stateStore: store,
    clock: { now: () => T0 },
    catalog: [],
    cluster: clusterInfo,
    ...over,
  });
}

describe('Ec2CloudProvider.create, edge cases', () => {
  beforeEach(() => {
    resetAndMockNodeClassDiscovery();
    ec2.on(CreateLaunchTemplateCommand).resolves({});
  });

  it('should return the instance an earlier attempt launched when the ClientToken was already used with other overrides', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).rejects(Object.assign(new Error('Client token already used'), { name: 'IdempotentParameterMismatch' }));
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            {
              InstanceId: 'i-0aaaaaaaaaaaaaaa1',
              InstanceType: 'm5.large',
              InstanceLifecycle: 'spot',
              Placement: { AvailabilityZone: 'us-east-1b' },
              SubnetId: 'subnet-b',
              State: { Name: 'running' },
              LaunchTime: new Date(T0 + 5_000),
            },
          ],
        },
      ],
    });
    // Act
    const instance = await provider().create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    expect(instance).toMatchObject({
      instanceId: 'i-0aaaaaaaaaaaaaaa1',
      zone: 'us-east-1b',
      providerID: 'aws:///us-east-1b/i-0aaaaaaaaaaaaaaa1',
      capacityType: 'spot',
    });
    expect(ec2.commandCalls(DescribeInstancesCommand)[0].args[0].input.Filters).toContainEqual({
      Name: 'tag:karpenter.sh/nodeclaim',
      Values: ['general-x7k2p'],
    });
  });

  it('should adopt no instance when a stray one carries the same nodeclaim tag (ownership goes by providerID)', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).rejects(Object.assign(new Error('Client token already used'), { name: 'IdempotentParameterMismatch' }));
    const tagged = (id: string, launched: number) => ({
      InstanceId: id,
      InstanceType: 'm5.large' as const,
      Placement: { AvailabilityZone: 'us-east-1b' },
      SubnetId: 'subnet-b',
      State: { Name: 'running' as const },
      LaunchTime: new Date(launched),
    });
    ec2
      .on(DescribeInstancesCommand)
      .resolves({ Reservations: [{ Instances: [tagged('i-0aaaaaaaaaaaaaaa1', T0 + 5_000), tagged('i-0bbbbbbbbbbbbbbb2', T0 + 6_000)] }] });
    // Act
    const act = provider().create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    await expect(act).rejects.toThrow(/Client token already used/);
  });

  it('should mark every planned type of a subnet without free addresses unavailable', async () => {
    // Prepare
    const store = new MemoryStateStore({ now: () => T0 });
    ec2.on(CreateFleetCommand).resolves({
      Instances: [],
      Errors: [
        {
          ErrorCode: 'InsufficientFreeAddressesInSubnet',
          ErrorMessage: 'full',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: { Overrides: { SubnetId: 'subnet-b', InstanceType: 'm5.large' } },
        },
      ],
    });
    // Act
    const act = provider(store).create(launchRequest([instanceType('m5.large', 0.096, 0.04), instanceType('c5.large', 0.085, 0.035)]));
    // Assess
    await expect(act).rejects.toSatisfy(isInsufficientCapacityError);
    const marked = (await store.unavailableOfferings()).map((o) => `${o.instanceType}/${o.zone}`).sort();
    expect(marked).toEqual(['c5.large/us-east-1b', 'm5.large/us-east-1b']);
  });

  it('should mark every planned spot offering unavailable when the spot service-linked role is missing', async () => {
    // Prepare
    const store = new MemoryStateStore({ now: () => T0 });
    ec2.on(CreateFleetCommand).resolves({
      Instances: [],
      Errors: [{ ErrorCode: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted', ErrorMessage: 'no spot role', Lifecycle: 'spot' }],
    });
    // Act
    const act = provider(store).create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    await expect(act).rejects.toSatisfy(isInsufficientCapacityError);
    const marked = (await store.unavailableOfferings()).map((o) => `${o.capacityType}/${o.instanceType}/${o.zone}`).sort();
    expect(marked).toEqual(['spot/m5.large/us-east-1a', 'spot/m5.large/us-east-1b']);
  });

  it('should refuse to launch for a node class with a role but no instance profile, before any EC2 write', async () => {
    // Prepare
    const req = launchRequest([instanceType('m5.large', 0.096, 0.04)]);
    req.nodeClass = nodeClass({ instanceProfile: undefined });
    // Act
    const act = provider().create(req);
    // Assess
    await expect(act).rejects.toSatisfy(isNodeClassNotReadyError);
    await expect(act).rejects.toThrow(/no instance profile/);
    expect(ec2.commandCalls(CreateLaunchTemplateCommand)).toHaveLength(0);
    expect(ec2.commandCalls(CreateFleetCommand)).toHaveLength(0);
  });

  it("should launch NVIDIA GPU types with the alias's nvidia AMI in their own launch template", async () => {
    // Prepare
    ssm
      .on(GetParameterCommand, { Name: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id' })
      .resolves({ Parameter: { Value: 'ami-nvidia' } });
    ec2.on(CreateFleetCommand).resolves({
      Instances: [
        {
          InstanceIds: ['i-0ccccccccccccccc3'],
          InstanceType: 'g5.xlarge',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: { Overrides: { SubnetId: 'subnet-a', AvailabilityZone: 'us-east-1a' } },
        },
      ],
    });
    const gpu = instanceType('g5.xlarge', 1.006, 0.05, { exotic: true, labels: { 'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia' } });
    const req = launchRequest([gpu, instanceType('m5.large', 0.096, 0.06)]);
    req.nodeClaim.spec.resources.requests['nvidia.com/gpu'] = 1;
    // Act
    const instance = await provider().create(req);
    // Assess
    const images = ec2
      .commandCalls(CreateLaunchTemplateCommand)
      .map((c) => c.args[0].input.LaunchTemplateData?.ImageId)
      .sort();
    expect(images).toEqual(['ami-nvidia', 'ami-x86']);
    expect(instance).toMatchObject({ instanceType: 'g5.xlarge', imageId: 'ami-nvidia' });
  });

  it('should use one launch template per architecture when amd64 and arm64 types are both candidates', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves({
      Instances: [
        {
          InstanceIds: ['i-0bbbbbbbbbbbbbbb2'],
          InstanceType: 'm6g.large',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: { Overrides: { SubnetId: 'subnet-a', AvailabilityZone: 'us-east-1a' } },
        },
      ],
    });
    const req = launchRequest([instanceType('m5.large', 0.096, 0.04), instanceType('m6g.large', 0.077, 0.03, { arch: 'arm64' })]);
    // Act
    const instance = await provider().create(req);
    // Assess
    const lts = ec2
      .commandCalls(CreateLaunchTemplateCommand)
      .map((c) => c.args[0].input.LaunchTemplateData?.ImageId)
      .sort();
    expect(lts).toEqual(['ami-arm', 'ami-x86']);
    expect(ec2.commandCalls(CreateFleetCommand)[0].args[0].input.LaunchTemplateConfigs).toHaveLength(2);
    expect(instance).toMatchObject({ instanceType: 'm6g.large', imageId: 'ami-arm' });
  });
});

describe('AL2023 user data', () => {
  it("should keep the node class's own NodeConfig part before nodewright's, so nodewright's settings win", () => {
    // Prepare
    const custom = [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      '',
      '--BOUNDARY',
      'Content-Type: application/node.eks.aws',
      '',
      'apiVersion: node.eks.aws/v1alpha1',
      'kind: NodeConfig',
      'spec:',
      '  kubelet:',
      '    config:',
      '      shutdownGracePeriod: 30s',
      '',
      '--BOUNDARY--',
      '',
    ].join('\n');
    // Act
    const mime = al2023UserData({
      amiFamily: 'AL2023',
      custom,
      labels: {},
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      kubelet: { maxPods: 58 },
      cluster: { name: 'demo', endpoint: clusterInfo.endpoint, certificateAuthority: 'Q0E=', serviceCidr: '10.100.0.0/16' },
    });
    // Assess
    expect(mime.startsWith('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"')).toBe(true);
    expect(mime.indexOf('shutdownGracePeriod: 30s')).toBeLessThan(mime.indexOf('apiServerEndpoint'));
    expect(mime).toContain('maxPods: 58');
    expect(mime).toContain('--register-with-taints=dedicated=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute');
    expect(mime.trimEnd().endsWith('--//--')).toBe(true);
  });
});

describe('clientTokenFor', () => {
  it('should use the NodeClaim name, shortened deterministically past 64 characters', () => {
    // Prepare
    const long = `${'a'.repeat(63)}-x7k2p`;
    // Act
    const token = clientTokenFor(long);
    // Assess
    expect(clientTokenFor('general-x7k2p')).toBe('general-x7k2p');
    expect(token).toHaveLength(64);
    expect(token).toBe(clientTokenFor(long));
    expect(token).not.toBe(clientTokenFor(`${'a'.repeat(63)}-x7k2q`));
  });
});
