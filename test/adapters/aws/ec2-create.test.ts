import { CreateFleetCommand, CreateLaunchTemplateCommand, EC2Client, type CreateFleetCommandInput } from '@aws-sdk/client-ec2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { isInsufficientCapacityError } from '../../../shared/core/errors';
import { CLUSTER, clusterInfo, ec2, instanceType, launchRequest, resetAndMockNodeClassDiscovery, T0 } from './fixtures';

function provider(store = new MemoryStateStore({ now: () => T0 })) {
  return new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-east-1' }),
    ssm: new SSMClient({ region: 'us-east-1' }),
    clusterName: CLUSTER,
    region: 'us-east-1',
    stateStore: store,
    clock: { now: () => T0 },
    catalog: [],
    cluster: clusterInfo,
  });
}

const fleetInput = (i = 0): CreateFleetCommandInput => ec2.commandCalls(CreateFleetCommand)[i].args[0].input;
const overrides = (input: CreateFleetCommandInput) => (input.LaunchTemplateConfigs ?? []).flatMap((c) => c.Overrides ?? []);
const launched = (type: string, zone: string, lifecycle: 'spot' | 'on-demand') => ({
  Instances: [
    {
      InstanceIds: ['i-0123456789abcdef0'],
      InstanceType: type as never,
      Lifecycle: lifecycle,
      LaunchTemplateAndOverrides: {
        Overrides: { InstanceType: type as never, AvailabilityZone: zone, SubnetId: zone.endsWith('a') ? 'subnet-a' : 'subnet-b' },
      },
    },
  ],
  Errors: [],
});

describe('Ec2CloudProvider.create', () => {
  beforeEach(() => {
    resetAndMockNodeClassDiscovery();
    ec2.on(CreateLaunchTemplateCommand).resolves({});
  });

  it('should launch by the NodeOverlay prices when the claim carries them: prioritized on-demand, each override its overlaid price as Priority', async () => {
    // Prepare: an overlay made m5.xlarge cheaper than m5.large for this user (e.g. a Savings Plan).
    ec2.on(CreateFleetCommand).resolves(launched('m5.xlarge', 'us-east-1a', 'on-demand'));
    const xl = instanceType('m5.xlarge', 0.192, 0.08);
    xl.offerings = xl.offerings.map((o) => (o.capacityType === 'on-demand' ? { ...o, price: 0.05, basePrice: 0.192, priceOverlay: 'savings-plan' } : o));
    const onDemand = [{ key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['on-demand'] }];
    const req = launchRequest([xl, instanceType('m5.large', 0.096, 0.04)], onDemand);
    req.nodeClaim.annotations = { ...req.nodeClaim.annotations, 'karpenter.sh/price-overlay-applied': 'true' };
    // Act
    await provider().create(req);
    // Assess
    const input = fleetInput();
    expect(input.OnDemandOptions).toEqual({ AllocationStrategy: 'prioritized' });
    expect(overrides(input).map((o) => [o.InstanceType, o.AvailabilityZone, o.Priority])).toEqual([
      ['m5.xlarge', 'us-east-1a', 0.05],
      ['m5.xlarge', 'us-east-1b', 0.05],
      ['m5.large', 'us-east-1a', 0.096],
      ['m5.large', 'us-east-1b', 0.096],
    ]);
  });

  it('should use capacity-optimized-prioritized for a spot claim with overlay prices, and no Priority without the annotation', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('m5.large', 'us-east-1a', 'spot'));
    const types = [instanceType('m5.large', 0.096, 0.04)];
    const priced = launchRequest(types);
    priced.nodeClaim.annotations = { ...priced.nodeClaim.annotations, 'karpenter.sh/price-overlay-applied': 'true' };
    // Act
    await provider().create(priced);
    await provider().create({ ...launchRequest(types), nodeClaim: { ...launchRequest(types).nodeClaim, name: 'general-other' } });
    // Assess
    expect(fleetInput(0).SpotOptions).toEqual({ AllocationStrategy: 'capacity-optimized-prioritized' });
    expect(overrides(fleetInput(0)).every((o) => o.Priority !== undefined)).toBe(true);
    expect(fleetInput(1).SpotOptions).toEqual({ AllocationStrategy: 'price-capacity-optimized' });
    expect(overrides(fleetInput(1)).some((o) => o.Priority !== undefined)).toBe(false);
  });

  it('should launch one spot instance with an instant fleet, cheapest overrides first, the claim name as ClientToken and ownership tags', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('m5.large', 'us-east-1a', 'spot'));
    const req = launchRequest([instanceType('m5.xlarge', 0.192, 0.08), instanceType('m5.large', 0.096, 0.04)]);
    // Act
    const instance = await provider().create(req);
    // Assess
    const input = fleetInput();
    expect(input).toMatchObject({
      Type: 'instant',
      ClientToken: 'general-x7k2p',
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'spot' },
      SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
    });
    expect(input.OnDemandOptions).toBeUndefined();
    expect(overrides(input)).toEqual([
      { InstanceType: 'm5.large', SubnetId: 'subnet-a', AvailabilityZone: 'us-east-1a' },
      { InstanceType: 'm5.large', SubnetId: 'subnet-b', AvailabilityZone: 'us-east-1b' },
      { InstanceType: 'm5.xlarge', SubnetId: 'subnet-a', AvailabilityZone: 'us-east-1a' },
      { InstanceType: 'm5.xlarge', SubnetId: 'subnet-b', AvailabilityZone: 'us-east-1b' },
    ]);
    expect(input.TagSpecifications?.map((t) => t.ResourceType)).toEqual(['instance', 'volume', 'fleet']);
    const tags = Object.fromEntries((input.TagSpecifications?.[0].Tags ?? []).map((t) => [t.Key, t.Value]));
    expect(tags).toEqual({
      team: 'platform',
      'kubernetes.io/cluster/demo': 'owned',
      'karpenter.sh/nodepool': 'general',
      'eks:eks-cluster-name': 'demo',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'karpenter.sh/nodeclaim': 'general-x7k2p',
    });
    expect(instance).toMatchObject({
      instanceId: 'i-0123456789abcdef0',
      providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
      imageId: 'ami-x86',
      subnetId: 'subnet-a',
      state: 'pending',
      launchTime: T0,
    });
  });

  it('should use on-demand lowest-price when the claim requires on-demand', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('m5.large', 'us-east-1b', 'on-demand'));
    const req = launchRequest([instanceType('m5.large', 0.096, 0.04)], [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }]);
    // Act
    const instance = await provider().create(req);
    // Assess
    expect(fleetInput()).toMatchObject({
      TargetCapacitySpecification: { DefaultTargetCapacityType: 'on-demand' },
      OnDemandOptions: { AllocationStrategy: 'lowest-price' },
    });
    expect(fleetInput().SpotOptions).toBeUndefined();
    expect(instance.capacityType).toBe('on-demand');
  });

  it('should drop GPU types unless requested, spot dearer than the cheapest on-demand, zones outside the claim, and cap at 60 overrides', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('c5.large', 'us-east-1a', 'spot'));
    const many = Array.from({ length: 40 }, (_, i) => instanceType(`c5.t${i}`, 1 + i, 0.02 + i / 1000));
    const req = launchRequest(
      [instanceType('p3.2xlarge', 3.06, 0.01, { exotic: true }), instanceType('r5.large', 0.126, 0.2), ...many],
      [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a', 'us-east-1b'] }],
    );
    // Act
    await provider().create(req);
    // Assess
    const types = overrides(fleetInput()).map((o) => o.InstanceType);
    expect(types).toHaveLength(60);
    expect(types).not.toContain('p3.2xlarge');
    expect(types).not.toContain('r5.large'); // spot 0.20 > cheapest on-demand 0.126
    expect(types[0]).toBe('c5.t0');
  });

  it("should keep exotic types and spot dearer than on-demand when the claim has minValues (Karpenter's filters stand aside)", async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('p3.2xlarge', 'us-east-1a', 'spot'));
    const req = launchRequest(
      [instanceType('p3.2xlarge', 3.06, 0.01, { exotic: true }), instanceType('r5.large', 0.126, 0.2), instanceType('m5.large', 0.096, 0.04)],
      [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['p3.2xlarge', 'r5.large', 'm5.large'], minValues: 3 }],
    );
    // Act
    await provider().create(req);
    // Assess
    expect([...new Set(overrides(fleetInput()).map((o) => o.InstanceType))].sort()).toEqual(['m5.large', 'p3.2xlarge', 'r5.large']);
  });

  it('should keep GPU types when the claim requests GPUs', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('p3.2xlarge', 'us-east-1a', 'spot'));
    const req = launchRequest([instanceType('p3.2xlarge', 3.06, 0.05, { exotic: true }), instanceType('m5.large', 0.096, 0.04)]);
    req.nodeClaim.spec.resources.requests['nvidia.com/gpu'] = 1;
    // Act
    await provider().create(req);
    // Assess
    expect(overrides(fleetInput()).map((o) => o.InstanceType)).toContain('p3.2xlarge');
  });

  it('should mark ICE offerings unavailable for 3 minutes and fail with InsufficientCapacityError when nothing launched', async () => {
    // Prepare
    const store = new MemoryStateStore({ now: () => T0 });
    ec2.on(CreateFleetCommand).resolves({
      Instances: [],
      Errors: [
        {
          ErrorCode: 'InsufficientInstanceCapacity',
          ErrorMessage: 'no capacity',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: { Overrides: { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SubnetId: 'subnet-a' } },
        },
        {
          ErrorCode: 'UnfulfillableCapacity',
          ErrorMessage: 'no capacity',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: { Overrides: { InstanceType: 'm5.large', SubnetId: 'subnet-b' } },
        },
      ],
    });
    // Act
    const act = provider(store).create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    await expect(act).rejects.toSatisfy(isInsufficientCapacityError);
    expect(await store.unavailableOfferings()).toEqual([
      { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', reason: 'InsufficientInstanceCapacity', expiresAt: T0 + 180_000 },
      { instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot', reason: 'UnfulfillableCapacity', expiresAt: T0 + 180_000 },
    ]);
  });

  it('should fail with InsufficientCapacityError and no API call when no offering is available', async () => {
    // Prepare
    const t = instanceType('m5.large', 0.096, 0.04);
    t.offerings = t.offerings.map((o) => ({ ...o, available: false }));
    // Act
    const act = provider().create(launchRequest([t]));
    // Assess
    await expect(act).rejects.toSatisfy(isInsufficientCapacityError);
    expect(ec2.commandCalls(CreateFleetCommand)).toHaveLength(0);
  });

  it('should create a launch template once with nodeadm user data and reuse it for the next claim', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).resolves(launched('m5.large', 'us-east-1a', 'spot'));
    const p = provider();
    // Act
    await p.create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    await p.create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    const calls = ec2.commandCalls(CreateLaunchTemplateCommand);
    expect(calls).toHaveLength(1);
    const lt = calls[0].args[0].input;
    expect(lt.LaunchTemplateName).toMatch(/^nodewright\/[0-9a-f]{20}$/);
    expect(lt.LaunchTemplateData).toMatchObject({
      ImageId: 'ami-x86',
      IamInstanceProfile: { Name: 'KarpenterNodeInstanceProfile-demo' },
      SecurityGroupIds: ['sg-1'],
      MetadataOptions: { HttpEndpoint: 'enabled', HttpProtocolIpv6: 'disabled', HttpPutResponseHopLimit: 1, HttpTokens: 'required' },
      BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true, DeleteOnTermination: true } }],
    });
    const userData = Buffer.from(lt.LaunchTemplateData?.UserData ?? '', 'base64').toString();
    expect(userData).toContain('Content-Type: application/node.eks.aws');
    expect(userData).toContain('name: demo');
    expect(userData).toContain('apiServerEndpoint: https://ABC.gr7.us-east-1.eks.amazonaws.com');
    expect(userData).toContain('cidr: 10.100.0.0/16');
    expect(userData).toContain('--register-with-taints=karpenter.sh/unregistered:NoExecute');
    expect(userData).toContain('--node-labels=karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/nodepool=general,team=platform');
    expect(fleetInput().LaunchTemplateConfigs?.[0].LaunchTemplateSpecification).toEqual({ LaunchTemplateName: lt.LaunchTemplateName, Version: '$Latest' });
  });

  it('should recreate a launch template that disappeared and retry the fleet once', async () => {
    // Prepare
    const notFound = Object.assign(new Error('The specified launch template does not exist'), { name: 'InvalidLaunchTemplateName.NotFoundException' });
    ec2
      .on(CreateFleetCommand)
      .rejectsOnce(notFound)
      .resolves(launched('m5.large', 'us-east-1a', 'spot'));
    const p = provider();
    // Act
    const instance = await p.create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    expect(instance.instanceId).toBe('i-0123456789abcdef0');
    expect(ec2.commandCalls(CreateFleetCommand).map((c) => c.args[0].input.ClientToken)).toEqual(['general-x7k2p', 'general-x7k2p-lt']);
    expect(ec2.commandCalls(CreateLaunchTemplateCommand)).toHaveLength(2);
  });

  it('should map a throttled CreateFleet to CloudProviderThrottledError', async () => {
    // Prepare
    ec2.on(CreateFleetCommand).rejects(Object.assign(new Error('Request limit exceeded.'), { name: 'RequestLimitExceeded' }));
    // Act
    const act = provider().create(launchRequest([instanceType('m5.large', 0.096, 0.04)]));
    // Assess
    await expect(act).rejects.toMatchObject({ name: 'CloudProviderThrottledError' });
  });
});
