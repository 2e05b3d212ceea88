import { CreateFleetCommand, CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import type { LaunchRequest } from '../../../shared/core/ports/cloud-provider';
import { CLUSTER, clusterInfo, ec2, instanceType, launchRequest, nodeClaim, nodeClass, resetAndMockNodeClassDiscovery, T0 } from './fixtures';

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

const launched = (type: string) => ({
  Instances: [
    {
      InstanceIds: ['i-0123456789abcdef0'],
      InstanceType: type as never,
      Lifecycle: 'on-demand' as const,
      LaunchTemplateAndOverrides: { Overrides: { InstanceType: type as never, AvailabilityZone: 'us-east-1a', SubnetId: 'subnet-a' } },
    },
  ],
  Errors: [],
});

const templates = () => ec2.commandCalls(CreateLaunchTemplateCommand).map((c) => c.args[0].input);
const p5 = instanceType('p5.48xlarge', 55, 20, { capacity: { 'vpc.amazonaws.com/efa': 32 } });
const trn1 = instanceType('trn1.32xlarge', 21, 8, { capacity: { 'vpc.amazonaws.com/efa': 8 } });

describe('launch templates and network interfaces', () => {
  beforeEach(() => {
    resetAndMockNodeClassDiscovery();
    ec2.on(CreateLaunchTemplateCommand).resolves({});
    ec2.on(CreateFleetCommand).resolves(launched('p5.48xlarge'));
  });

  it("should attach the EC2NodeClass's networkInterfaces, with a public IP choice only on ENA interfaces", async () => {
    // Prepare
    const req: LaunchRequest = {
      ...launchRequest([p5]),
      nodeClass: nodeClass({
        associatePublicIPAddress: false,
        networkInterfaces: [
          { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
          { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
        ],
      }),
    };

    // Act
    await provider().create(req);

    // Assess
    const data = templates()[0].LaunchTemplateData;
    expect(data?.SecurityGroupIds).toBeUndefined();
    expect(data?.NetworkInterfaces).toEqual([
      { NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: 'interface', Groups: ['sg-1'], AssociatePublicIpAddress: false },
      { NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: 'efa-only', Groups: ['sg-1'] },
    ]);
  });

  it('should give a claim that requests EFA one EFA interface per device the type has, in a template per EFA count', async () => {
    // Prepare
    const claim = nodeClaim([], { spec: { ...nodeClaim().spec, resources: { requests: { cpu: 1000, 'vpc.amazonaws.com/efa': 1 } } } });

    // Act
    await provider().create({ ...launchRequest([trn1, p5]), nodeClaim: claim });

    // Assess: trn1 with 8 EFA interfaces, p5 with 32; one on device 0 of card 0, then device 1 of each next card.
    const byCount = new Map(templates().map((t) => [t.LaunchTemplateData?.NetworkInterfaces?.length, t.LaunchTemplateData?.NetworkInterfaces ?? []]));
    expect([...byCount.keys()].sort()).toEqual([32, 8]);
    expect(byCount.get(8)?.slice(0, 2)).toEqual([
      { NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: 'efa', Groups: ['sg-1'] },
      { NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: 'efa', Groups: ['sg-1'] },
    ]);
    const configs = ec2.commandCalls(CreateFleetCommand)[0].args[0].input.LaunchTemplateConfigs ?? [];
    expect(configs).toHaveLength(2);
  });

  it('should attach no EFA interface to a claim that does not request EFA', async () => {
    // Act
    await provider().create(launchRequest([p5]));

    // Assess
    expect(templates()[0].LaunchTemplateData).toMatchObject({ SecurityGroupIds: ['sg-1'] });
    expect(templates()[0].LaunchTemplateData?.NetworkInterfaces).toBeUndefined();
  });
});
