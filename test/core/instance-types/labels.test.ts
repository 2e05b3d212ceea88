import { describe, expect, it } from 'vitest';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { toCatalogEntry } from '../../../shared/adapters/aws/ec2/catalog-mapping';
import { buildInstanceTypes } from '../../../shared/core/instance-types/build';
import { Label } from '../../../shared/core/model/labels';
import { build, catalogEntry, nodeClass, ZONES } from './helpers';

/** trn1.32xlarge as DescribeInstanceTypes answers it (the attributes the bundled catalog lacks included). */
const trn1: InstanceTypeInfo = {
  InstanceType: 'trn1.32xlarge',
  VCpuInfo: { DefaultVCpus: 128 },
  MemoryInfo: { SizeInMiB: 524288 },
  Hypervisor: 'nitro',
  BareMetal: false,
  NitroEnclavesSupport: 'unsupported',
  ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'Intel', SustainedClockSpeedInGhz: 3.5 },
  EbsInfo: { EbsOptimizedSupport: 'default', EbsOptimizedInfo: { MaximumBandwidthInMbps: 80000 } },
  NeuronInfo: { NeuronDevices: [{ Count: 16, Name: 'Trainium', CoreInfo: { Count: 2 } }] },
  NetworkInfo: {
    MaximumNetworkInterfaces: 40,
    Ipv4AddressesPerInterface: 50,
    DefaultNetworkCardIndex: 0,
    NetworkCards: [{ NetworkCardIndex: 0, MaximumNetworkInterfaces: 5 }],
    EncryptionInTransitSupported: true,
    EfaSupported: true,
    EfaInfo: { MaximumEfaInterfaces: 8 },
  },
};

describe('instance type labels and accelerator resources', () => {
  it('should label a GPU type and expose its GPUs as nvidia.com/gpu', () => {
    // Prepare / Act
    const it = build('p3.8xlarge');

    // Assess
    expect(it.capacity['nvidia.com/gpu']).toBe(4);
    expect(it.allocatable['nvidia.com/gpu']).toBe(4);
    expect(it.labels[Label.instanceGpuCount]).toBe('4');
    expect(it.labels[Label.instanceGpuManufacturer]).toBe('nvidia');
    expect(it.labels[Label.instanceGpuName]).toBe('v100');
    expect(it.labels[Label.instanceGpuMemory]).toBe('16384');
    expect(it.exotic).toBe(true);
  });

  it('should expose AMD GPUs as amd.com/gpu', () => {
    // Prepare / Act
    const it = build('g4ad.xlarge');

    // Assess
    expect(it.capacity['amd.com/gpu']).toBe(1);
    expect(it.capacity['nvidia.com/gpu']).toBeUndefined();
    expect(it.labels[Label.instanceGpuManufacturer]).toBe('amd');
  });

  it('should expose Inferentia and Trainium as aws.amazon.com/neuron with accelerator labels', () => {
    // Prepare / Act
    const inf = build('inf2.xlarge');
    const trn = build('trn1.32xlarge');

    // Assess
    expect(inf.capacity['aws.amazon.com/neuron']).toBe(1);
    expect(inf.labels[Label.instanceAcceleratorName]).toBe('inferentia2');
    expect(inf.labels[Label.instanceAcceleratorManufacturer]).toBe('aws');
    expect(inf.labels[Label.instanceAcceleratorCount]).toBe('1');
    expect(inf.labels[Label.instanceGpuCount]).toBeUndefined();
    expect(trn.capacity['aws.amazon.com/neuron']).toBe(16);
    expect(inf.exotic && trn.exotic).toBe(true);
  });

  it('should expose Habana Gaudi as habana.ai/gaudi', () => {
    // Prepare / Act
    const it = build('dl1.24xlarge');

    // Assess
    expect(it.capacity['habana.ai/gaudi']).toBe(8);
  });

  it('should omit GPU, accelerator and NVMe labels on a plain type so they count as DoesNotExist', () => {
    // Prepare / Act
    const it = build('m5.xlarge');

    // Assess
    expect(it.labels).toEqual({
      [Label.instanceType]: 'm5.xlarge',
      [Label.arch]: 'amd64',
      [Label.os]: 'linux',
      [Label.region]: 'us-east-1',
      [Label.instanceCategory]: 'm',
      [Label.instanceFamily]: 'm5',
      [Label.instanceGeneration]: '5',
      [Label.instanceSize]: 'xlarge',
      [Label.instanceCpu]: '4',
      [Label.instanceMemory]: '16384',
      [Label.instanceHypervisor]: 'nitro',
      [Label.instanceNetworkBandwidth]: '1250',
      [Label.instanceCapabilityFlex]: 'false',
      [Label.instanceTenancy]: 'default',
    });
    expect(it.exotic).toBe(false);
    expect(Object.keys(it.capacity).some((k) => k.includes('gpu') || k.includes('neuron'))).toBe(false);
  });

  it('should label local NVMe and arm64, and omit the hypervisor on bare metal', () => {
    // Prepare / Act
    const nvme = build('m6gd.xlarge');
    const metal = build('m5.metal');

    // Assess
    expect(nvme.labels[Label.instanceLocalNvme]).toBe('237');
    expect(nvme.labels[Label.arch]).toBe('arm64');
    expect(nvme.arch).toBe('arm64');
    expect(metal.labels[Label.instanceHypervisor]).toBeUndefined();
    expect(metal.exotic).toBe(true);
  });

  it("should label what DescribeInstanceTypes says about the CPU, EBS, encryption and Nitro Enclaves, and count EFA and neuron cores, as Karpenter's provider does", () => {
    // Prepare
    const entry = toCatalogEntry(trn1, catalogEntry('trn1.32xlarge'));
    if (!entry) throw new Error('trn1.32xlarge did not map');

    // Act
    const [it] = buildInstanceTypes([entry], { region: 'us-east-1', zones: ZONES });

    // Assess
    expect(it.labels[Label.instanceCpuManufacturer]).toBe('intel');
    expect(it.labels[Label.instanceCpuSustainedClockSpeedMhz]).toBe('3500');
    expect(it.labels[Label.instanceEbsBandwidth]).toBe('80000');
    expect(it.labels[Label.instanceEncryptionInTransitSupported]).toBe('true');
    expect(it.labels[Label.nitroSandbox]).toBe('false');
    expect(it.capacity['vpc.amazonaws.com/efa']).toBe(8);
    expect(it.capacity['aws.amazon.com/neuron']).toBe(16);
    expect(it.capacity['aws.amazon.com/neuroncore']).toBe(32);
  });

  it('should label flex types as such, and give Windows nodes their secondary IPv4 addresses as a resource', () => {
    // Prepare / Act
    const flex = build('c7i-flex.large');
    const [win] = buildInstanceTypes([catalogEntry('m5.xlarge')], {
      region: 'us-east-1',
      zones: ZONES,
      nodeClass: nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [{ alias: 'windows2022@latest' }] }),
    });

    // Assess
    expect(flex.labels[Label.instanceCapabilityFlex]).toBe('true');
    expect(win.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe(catalogEntry('m5.xlarge').ipv4PerENI - 1);
    expect(build('m5.xlarge').capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBeUndefined();
  });

  it('should offer no a1 type on AL2023, which does not support it, and offer it on AL2', () => {
    // Prepare / Act
    const [al2023] = buildInstanceTypes([catalogEntry('a1.large')], { region: 'us-east-1', zones: ZONES, nodeClass: nodeClass() });
    const [al2] = buildInstanceTypes([catalogEntry('a1.large')], {
      region: 'us-east-1',
      zones: ZONES,
      nodeClass: nodeClass({ amiFamily: 'AL2', amiSelectorTerms: [{ alias: 'al2@latest' }] }),
    });

    // Assess
    expect(al2023.offerings.some((o) => o.available)).toBe(false);
    expect(al2.offerings.some((o) => o.available)).toBe(true);
  });
});
