import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  EC2Client,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { VirtualClock } from '../../../shared/sim/clock';
import { DynamoTable } from '../../../shared/sim/aws/dynamo-table';
import { Ec2World, type Ec2Event } from '../../../shared/sim/aws/ec2-world';
import { installSimulatedAws } from '../../../shared/sim/aws/services';

const catalog = loadCatalog();

function fleetInput(token: string, types: string[], capacity: 'spot' | 'on-demand', subnets: { id: string; zone: string }[]) {
  return {
    Type: 'instant' as const,
    ClientToken: token,
    TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: capacity },
    LaunchTemplateConfigs: [
      {
        LaunchTemplateSpecification: { LaunchTemplateName: 'nodewright-test', Version: '$Latest' },
        Overrides: types.flatMap((t) => subnets.map((s) => ({ InstanceType: t as never, SubnetId: s.id, AvailabilityZone: s.zone }))),
      },
    ],
    TagSpecifications: [
      {
        ResourceType: 'instance' as const,
        Tags: [
          { Key: 'karpenter.sh/nodepool', Value: 'default' },
          { Key: 'karpenter.sh/nodeclaim', Value: token },
        ],
      },
    ],
  };
}

describe('simulated EC2 behind the AWS SDK', () => {
  let clock: VirtualClock;
  let world: Ec2World;
  let restore: () => void;
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

  beforeEach(async () => {
    clock = new VirtualClock(Date.UTC(2025, 0, 1));
    world = new Ec2World({ region: 'us-east-1', zones: ['us-east-1a', 'us-east-1b'], clusterName: 'sim', seed: 1, clock, catalog });
    restore = installSimulatedAws(() => ({
      world,
      table: new DynamoTable(),
      cluster: { name: 'sim', endpoint: 'https://127.0.0.1:1', caData: '', version: '1.31' },
      stepFunctions: {
        start: () => {
          throw new Error('unused');
        },
        describe: () => undefined,
      },
    }));
    await ec2.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: 'nodewright-test',
        LaunchTemplateData: { ImageId: 'ami-1', UserData: Buffer.from('--node-labels=a=b').toString('base64') },
      }),
    );
  });

  afterEach(() => restore());

  it('should find subnets by discovery tag and launch the cheapest on-demand override, once per ClientToken', async () => {
    // Prepare
    const subnets = (await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['sim'] }] }))).Subnets ?? [];
    const input = fleetInput(
      'default-abcde',
      ['m5.xlarge', 'c5.large', 'm5.large'],
      'on-demand',
      subnets.map((s) => ({ id: s.SubnetId ?? '', zone: s.AvailabilityZone ?? '' })),
    );
    // Act
    const first = await ec2.send(new CreateFleetCommand(input));
    const again = await ec2.send(new CreateFleetCommand(input));
    // Assess
    expect(subnets).toHaveLength(2);
    expect(first.Instances?.[0]?.InstanceType).toBe('c5.large');
    expect(again.Instances?.[0]?.InstanceIds).toEqual(first.Instances?.[0]?.InstanceIds);
    expect(world.instances.size).toBe(1);
  });

  it('should answer an insufficient-capacity window with the ICE error codes and no instance', async () => {
    // Prepare
    world.addCapacityWindow({ instanceType: 'c5.large', capacityType: 'spot', fromMs: clock.now(), untilMs: clock.now() + 600_000 });
    const subnets = world.subnets.map((s) => ({ id: s.id, zone: s.zone }));
    // Act
    const out = await ec2.send(new CreateFleetCommand(fleetInput('spot-xyz', ['c5.large'], 'spot', subnets)));
    // Assess
    expect(out.Instances).toEqual([]);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual(['InsufficientInstanceCapacity', 'InsufficientInstanceCapacity']);
  });

  it('should filter and page DescribeInstances and report terminations', async () => {
    // Prepare
    const subnets = world.subnets.map((s) => ({ id: s.id, zone: s.zone }));
    for (let i = 0; i < 7; i++) await ec2.send(new CreateFleetCommand(fleetInput(`claim-${i}`, ['m5.large'], 'on-demand', subnets)));
    const victim = [...world.instances.values()][0];
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [victim.id] }));
    // Act
    const filters = [
      { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
      { Name: 'instance-state-name', Values: ['pending', 'running'] },
    ];
    const page1 = await ec2.send(new DescribeInstancesCommand({ Filters: filters, MaxResults: 5 }));
    const page2 = await ec2.send(new DescribeInstancesCommand({ Filters: filters, MaxResults: 5, NextToken: page1.NextToken }));
    // Assess
    const ids = [...(page1.Reservations ?? []), ...(page2.Reservations ?? [])].flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId);
    expect(ids).toHaveLength(6);
    expect(ids).not.toContain(victim.id);
    expect(page2.NextToken).toBeUndefined();
    await expect(ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-00000000000000000'] }))).rejects.toMatchObject({
      name: 'InvalidInstanceID.NotFound',
    });
  });

  it('should answer DescribeInstances by id, by instance-id filter and by exact tag with only the matching instances, other filters still applied', async () => {
    // Prepare
    const subnets = world.subnets.map((s) => ({ id: s.id, zone: s.zone }));
    for (let i = 0; i < 5; i++) await ec2.send(new CreateFleetCommand(fleetInput(`claim-${i}`, ['m5.large'], 'on-demand', subnets)));
    const [a, b] = [...world.instances.values()];
    const ids = async (input: NonNullable<ConstructorParameters<typeof DescribeInstancesCommand>[0]>) =>
      ((await ec2.send(new DescribeInstancesCommand(input))).Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId);
    // Act + Assess
    expect(await ids({ InstanceIds: [b.id, a.id, a.id] })).toEqual([a.id, b.id].sort());
    expect(await ids({ Filters: [{ Name: 'instance-id', Values: [b.id, 'i-00000000000000000'] }] })).toEqual([b.id]);
    expect(await ids({ Filters: [{ Name: 'tag:karpenter.sh/nodeclaim', Values: [a.tags['karpenter.sh/nodeclaim']] }] })).toEqual([a.id]);
    expect(await ids({ Filters: [{ Name: 'tag:karpenter.sh/nodeclaim', Values: ['claim-*'] }] })).toHaveLength(5);
    expect(
      await ids({
        Filters: [
          { Name: 'tag:karpenter.sh/nodeclaim', Values: [a.tags['karpenter.sh/nodeclaim']] },
          { Name: 'instance-state-name', Values: ['terminated'] },
        ],
      }),
    ).toEqual([]);
  });

  it("should not know a lagging new instance in DescribeInstances or TerminateInstances until its lag is over (EC2's eventual consistency)", async () => {
    // Prepare: launches now stay invisible for 60 s, as a `lag` fault makes them.
    world.describeLagSeconds = () => 60;
    const fleet = await ec2.send(
      new CreateFleetCommand(
        fleetInput(
          'lagging-1',
          ['m5.large'],
          'on-demand',
          world.subnets.map((s) => ({ id: s.id, zone: s.zone })),
        ),
      ),
    );
    const id = fleet.Instances?.[0]?.InstanceIds?.[0] ?? '';
    const listed = async () =>
      ((await ec2.send(new DescribeInstancesCommand({}))).Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId);
    // Act
    const listedEarly = await listed();
    const byIdEarly = ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    const terminateEarly = ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    const startedAt = clock.now();
    while (clock.advance(startedAt + 60_000)) {
      /* through the lag */
    }
    const listedLate = await listed();
    // Assess
    expect(id).toMatch(/^i-/);
    expect(listedEarly).toEqual([]);
    await expect(byIdEarly).rejects.toMatchObject({ name: 'InvalidInstanceID.NotFound' });
    await expect(terminateEarly).rejects.toMatchObject({ name: 'InvalidInstanceID.NotFound' });
    expect(listedLate).toEqual([id]);
    expect(world.instances.get(id)?.state).toBe('running');
  });

  it('should send the 2-minute spot warning, then terminate the instance', async () => {
    // Prepare
    const events: Ec2Event[] = [];
    world.onEvent((e) => events.push(e));
    await ec2.send(
      new CreateFleetCommand(
        fleetInput(
          'spot-1',
          ['m5.large'],
          'spot',
          world.subnets.map((s) => ({ id: s.id, zone: s.zone })),
        ),
      ),
    );
    const instance = [...world.instances.values()][0];
    // Act
    world.interruptSpot(instance);
    const warnedAt = clock.now();
    while (clock.advance(warnedAt + 119_000)) {
      /* just before the end of the notice */
    }
    const stateBefore = instance.state;
    while (clock.advance(warnedAt + 180_000)) {
      /* past it */
    }
    // Assess
    expect(events[0]).toMatchObject({ 'detail-type': 'EC2 Spot Instance Interruption Warning', detail: { 'instance-id': instance.id } });
    expect(stateBefore).toBe('running');
    expect(instance.state).toBe('terminated');
    expect(events.map((e) => e.detail.state).filter(Boolean)).toEqual(['shutting-down', 'terminated']);
  });

  it('should fill per-zone capacity, then answer InsufficientInstanceCapacity', async () => {
    // Prepare
    world.capacityLimits.push({ instanceType: 'm5.large', capacityType: 'on-demand', max: 1 });
    const subnets = world.subnets.map((s) => ({ id: s.id, zone: s.zone }));
    // Act
    const outs = [];
    for (let i = 0; i < 3; i++) outs.push(await ec2.send(new CreateFleetCommand(fleetInput(`cap-${i}`, ['m5.large'], 'on-demand', subnets))));
    // Assess
    expect(outs.map((o) => o.Instances?.[0]?.LaunchTemplateAndOverrides?.Overrides?.AvailabilityZone)).toEqual(['us-east-1a', 'us-east-1b', undefined]);
    expect(outs[2].Errors?.map((e) => e.ErrorCode)).toEqual(['InsufficientInstanceCapacity', 'InsufficientInstanceCapacity']);
  });
});
