import {
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  EC2Client,
  type InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import type { CatalogEntry } from '../../../shared/core/instance-types/types';
import { buildInstanceTypes } from '../../../shared/core/instance-types/build';
import { CLUSTER, clusterInfo, ec2, nodeClass, resetAndMockNodeClassDiscovery, T0 } from './fixtures';
import { epochMs, type EpochMs } from '../../../shared/core/time';

// The builder belongs to the instance-types work; here we check what the adapter hands it.
vi.mock('../../../shared/core/instance-types/build', () => ({ buildInstanceTypes: vi.fn(() => []) }));
const build = vi.mocked(buildInstanceTypes);

const m5large: InstanceTypeInfo = {
  InstanceType: 'm5.large',
  VCpuInfo: { DefaultVCpus: 2 },
  MemoryInfo: { SizeInMiB: 8192 },
  Hypervisor: 'nitro',
  BareMetal: false,
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  NetworkInfo: {
    MaximumNetworkInterfaces: 3,
    Ipv4AddressesPerInterface: 10,
    DefaultNetworkCardIndex: 0,
    NetworkCards: [{ NetworkCardIndex: 0, MaximumNetworkInterfaces: 3 }],
  },
};
const g5: InstanceTypeInfo = {
  InstanceType: 'g5.xlarge',
  VCpuInfo: { DefaultVCpus: 4 },
  MemoryInfo: { SizeInMiB: 16384 },
  Hypervisor: 'nitro',
  BareMetal: false,
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  GpuInfo: { Gpus: [{ Name: 'A10G', Manufacturer: 'NVIDIA', Count: 1, MemoryInfo: { SizeInMiB: 24576 } }] },
  NetworkInfo: { MaximumNetworkInterfaces: 4, Ipv4AddressesPerInterface: 15 },
};
const catalogEntry = (name: string, od: number): CatalogEntry => ({
  name,
  family: name.split('.')[0],
  category: name[0],
  generation: 5,
  size: name.split('.')[1],
  vcpu: 2,
  memoryMiB: 8192,
  arch: 'amd64',
  gpuCount: 0,
  gpuManufacturer: null,
  gpuName: null,
  gpuMemoryMiB: null,
  hypervisor: 'nitro',
  bareMetal: false,
  maxENIs: 3,
  ipv4PerENI: 10,
  maxPodsEni: 29,
  localNvmeGB: null,
  networkBandwidthMbps: 750,
  onDemandUsdPerHour: { 'us-east-1': od },
  acceleratorCount: null,
  acceleratorName: null,
  acceleratorManufacturer: null,
});

function provider(clock: { now: () => EpochMs }, store = new MemoryStateStore(clock)) {
  return new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-east-1' }),
    ssm: new SSMClient({ region: 'us-east-1' }),
    clusterName: CLUSTER,
    region: 'us-east-1',
    stateStore: store,
    clock,
    catalog: [catalogEntry('m5.large', 0.096), catalogEntry('c5.large', 0.085)],
    cluster: clusterInfo,
  });
}

describe('Ec2CloudProvider.instanceTypes', () => {
  beforeEach(() => {
    resetAndMockNodeClassDiscovery();
    build.mockClear();
  });

  it('should read every page of types, offerings and spot prices and hand them, the stored Price List prices and ICE marks to buildInstanceTypes', async () => {
    // Prepare
    ec2
      .on(DescribeInstanceTypesCommand)
      .resolvesOnce({ InstanceTypes: [m5large], NextToken: 't2' })
      .resolvesOnce({ InstanceTypes: [g5] });
    ec2
      .on(DescribeInstanceTypeOfferingsCommand)
      .resolvesOnce({ InstanceTypeOfferings: [{ InstanceType: 'm5.large', Location: 'us-east-1b' }], NextToken: 'o2' })
      .resolvesOnce({
        InstanceTypeOfferings: [
          { InstanceType: 'm5.large', Location: 'us-east-1a' },
          { InstanceType: 'g5.xlarge', Location: 'us-east-1a' },
        ],
      });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({
      SpotPriceHistory: [
        { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.0400', Timestamp: new Date(T0 - 1000) },
        { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SpotPrice: '0.0350', Timestamp: new Date(T0 - 5000) },
      ],
    });
    const clock = { now: () => T0 };
    const store = new MemoryStateStore(clock);
    await store.markUnavailable({ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' }, 180, 'InsufficientInstanceCapacity');
    await store.putOnDemandPrices('us-east-1', { prices: { 'm5.large': 0.097, 'g5.xlarge': 1.006 }, fetchedAt: epochMs(T0 - 3600_000) });
    // Act
    await provider(clock, store).instanceTypes(nodeClass());
    // Assess
    const [entries, opts] = build.mock.calls[0];
    expect(entries.map((e) => e.name)).toEqual(['g5.xlarge', 'm5.large']);
    expect(entries[1]).toMatchObject({
      vcpu: 2,
      memoryMiB: 8192,
      arch: 'amd64',
      maxENIs: 3,
      ipv4PerENI: 10,
      maxPodsEni: 29,
      networkBandwidthMbps: 750,
      onDemandUsdPerHour: { 'us-east-1': 0.096 },
    });
    expect(entries[0]).toMatchObject({
      gpuCount: 1,
      gpuName: 'a10g',
      gpuManufacturer: 'nvidia',
      gpuMemoryMiB: 24576,
      maxPodsEni: 58,
      category: 'g',
      generation: 5,
    });
    expect(opts).toMatchObject({
      region: 'us-east-1',
      zones: ['us-east-1a', 'us-east-1b'],
      zonesByType: { 'm5.large': ['us-east-1a', 'us-east-1b'], 'g5.xlarge': ['us-east-1a'] },
      spotPrices: { 'm5.large/us-east-1a': 0.04 },
      onDemandPrices: { 'm5.large': 0.097, 'g5.xlarge': 1.006 },
      unavailable: [{ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' }],
    });
    expect(opts.nodeClass?.status?.subnets).toEqual([
      { id: 'subnet-a', zone: 'us-east-1a', zoneID: 'use1-az1' },
      { id: 'subnet-b', zone: 'us-east-1b', zoneID: 'use1-az2' },
    ]);
  });

  it('should cache types for 5 minutes and spot prices for 12 hours', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [m5large] });
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    let now = T0;
    const p = provider({ now: () => now });
    // Act
    await p.instanceTypes(nodeClass());
    now = epochMs(now + 4 * 60_000);
    await p.instanceTypes(nodeClass());
    now = epochMs(now + 2 * 60_000);
    await p.instanceTypes(nodeClass());
    // Assess
    expect(ec2.commandCalls(DescribeInstanceTypesCommand)).toHaveLength(2);
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(1);
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)[0].args[0].input).toMatchObject({
      ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
      StartTime: new Date(T0),
    });
  });

  it('should fall back to the bundled catalog when DescribeInstanceTypes is denied', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).rejects(Object.assign(new Error('not authorized'), { name: 'UnauthorizedOperation' }));
    ec2.on(DescribeInstanceTypeOfferingsCommand).rejects(Object.assign(new Error('not authorized'), { name: 'UnauthorizedOperation' }));
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
    // Act
    await provider({ now: () => T0 }).instanceTypes(nodeClass());
    // Assess
    const [entries, opts] = build.mock.calls[0];
    expect(entries.map((e) => e.name)).toEqual(['m5.large', 'c5.large']);
    expect(opts.zonesByType).toBeUndefined();
  });
});
