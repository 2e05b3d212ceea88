import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { loadCatalog } from '../../../shared/catalog';
import { CLUSTER, clusterInfo, ec2, nodeClass, resetAndMockNodeClassDiscovery, ssm, T0 } from './fixtures';

describe('Ec2CloudProvider.instanceTypes with the real builder and catalog', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should price offerings from spot history and the catalog and mark ICE-cached ones unavailable', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).resolves({
      InstanceTypes: [
        {
          InstanceType: 'm5.large',
          VCpuInfo: { DefaultVCpus: 2 },
          MemoryInfo: { SizeInMiB: 8192 },
          Hypervisor: 'nitro',
          BareMetal: false,
          ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
          NetworkInfo: { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 10 },
        },
      ],
    });
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [
        { InstanceType: 'm5.large', Location: 'us-east-1a' },
        { InstanceType: 'm5.large', Location: 'us-east-1b' },
      ],
    });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({
      SpotPriceHistory: [
        { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.0400', Timestamp: new Date(T0) },
        { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1b', SpotPrice: '0.0410', Timestamp: new Date(T0) },
      ],
    });
    const clock = { now: () => T0 };
    const store = new MemoryStateStore(clock);
    await store.markUnavailable({ instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot' }, 180, 'InsufficientInstanceCapacity');
    const provider = new Ec2CloudProvider({
      ec2: new EC2Client({ region: 'us-east-1' }),
      ssm: new SSMClient({ region: 'us-east-1' }),
      clusterName: CLUSTER,
      region: 'us-east-1',
      stateStore: store,
      clock,
      catalog: loadCatalog(),
      cluster: clusterInfo,
    });
    // Act
    const types = await provider.instanceTypes(nodeClass());
    // Assess
    expect(types.map((t) => t.name)).toEqual(['m5.large']);
    const offers = Object.fromEntries(types[0].offerings.map((o) => [`${o.capacityType}/${o.zone}`, [o.price, o.available]]));
    expect(offers['spot/us-east-1a']).toEqual([0.04, true]);
    expect(offers['spot/us-east-1b']).toEqual([0.041, false]);
    expect(offers['on-demand/us-east-1a']).toEqual([0.096, true]);
    expect(types[0].capacity.pods).toBe(29);
  });

  it('should not offer types of an architecture the node class has no AMI for', async () => {
    // Prepare
    const info = (name: string, arch: 'x86_64' | 'arm64') => ({
      InstanceType: name as never,
      VCpuInfo: { DefaultVCpus: 2 },
      MemoryInfo: { SizeInMiB: 8192 },
      ProcessorInfo: { SupportedArchitectures: [arch] },
      NetworkInfo: { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 10 },
    });
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [info('m5.large', 'x86_64'), info('m6g.large', 'arm64')] });
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    ssm.on(GetParameterCommand).callsFake((input: { Name: string }) => {
      if (input.Name.includes('/arm64/')) throw new ParameterNotFound({ message: 'not found', $metadata: {} });
      return { Parameter: { Value: 'ami-x86' } };
    });
    const clock = { now: () => T0 };
    const provider = new Ec2CloudProvider({
      ec2: new EC2Client({ region: 'us-east-1' }),
      ssm: new SSMClient({ region: 'us-east-1' }),
      clusterName: CLUSTER,
      region: 'us-east-1',
      stateStore: new MemoryStateStore(clock),
      clock,
      catalog: loadCatalog(),
      cluster: clusterInfo,
    });
    // Act
    const types = await provider.instanceTypes(nodeClass());
    // Assess
    expect(types.map((t) => t.name)).toEqual(['m5.large']);
  });
});
