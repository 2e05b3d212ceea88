/** The bundled catalog answered as DescribeInstanceTypes would: a CatalogEntry as an EC2 InstanceTypeInfo. */
import { soldAsSpot } from '../../core/instance-types/offerings';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { CatalogEntry } from '../../core/instance-types/types';

export function instanceTypeInfo(e: CatalogEntry): InstanceTypeInfo {
  const gpus =
    e.gpuCount > 0
      ? [
          {
            Count: e.gpuCount,
            Name: e.gpuName ?? undefined,
            Manufacturer: e.gpuManufacturer ?? undefined,
            MemoryInfo: e.gpuMemoryMiB ? { SizeInMiB: e.gpuMemoryMiB } : undefined,
          },
        ]
      : undefined;
  const neuron =
    e.acceleratorCount && e.acceleratorName
      ? {
          NeuronDevices: [
            { Count: e.acceleratorCount, Name: e.acceleratorName, ...(e.neuronCoresPerDevice ? { CoreInfo: { Count: e.neuronCoresPerDevice } } : {}) },
          ],
        }
      : undefined;
  return {
    InstanceType: e.name as never,
    CurrentGeneration: true,
    BareMetal: e.bareMetal,
    Hypervisor: (e.hypervisor ?? undefined) as never,
    SupportedUsageClasses: soldAsSpot(e) ? ['on-demand', 'spot'] : ['on-demand'],
    SupportedVirtualizationTypes: ['hvm'],
    ProcessorInfo: {
      SupportedArchitectures: [e.arch === 'amd64' ? 'x86_64' : 'arm64'],
      ...(e.cpuManufacturer ? { Manufacturer: e.cpuManufacturer } : {}),
      ...(e.cpuClockMhz !== undefined ? { SustainedClockSpeedInGhz: e.cpuClockMhz / 1000 } : {}),
    },
    ...(e.nitroEnclaves !== undefined ? { NitroEnclavesSupport: e.nitroEnclaves ? 'supported' : 'unsupported' } : {}),
    ...(e.ebsBandwidthMbps !== undefined
      ? { EbsInfo: { EbsOptimizedSupport: 'default', EbsOptimizedInfo: { MaximumBandwidthInMbps: e.ebsBandwidthMbps } } }
      : {}),
    VCpuInfo: { DefaultVCpus: e.vcpu },
    MemoryInfo: { SizeInMiB: e.memoryMiB },
    ...(gpus ? { GpuInfo: { Gpus: gpus as never } } : {}),
    ...(neuron ? { NeuronInfo: neuron as never } : {}),
    ...(e.localNvmeGB ? { InstanceStorageSupported: true, InstanceStorageInfo: { TotalSizeInGB: e.localNvmeGB, NvmeSupport: 'required' } } : {}),
    NetworkInfo: {
      MaximumNetworkInterfaces: e.maxENIs,
      Ipv4AddressesPerInterface: e.ipv4PerENI,
      DefaultNetworkCardIndex: 0,
      ...(e.encryptionInTransit !== undefined ? { EncryptionInTransitSupported: e.encryptionInTransit } : {}),
      ...(e.efaMax ? { EfaSupported: true, EfaInfo: { MaximumEfaInterfaces: e.efaMax } } : {}),
      // The bundled catalog knows how many cards a type has and the default card's interfaces: the others get as many.
      NetworkCards: Array.from({ length: e.networkCards ?? 1 }, (_, i) => ({
        NetworkCardIndex: i,
        MaximumNetworkInterfaces: e.networkCardMaxENIs?.[i] ?? e.maxENIs,
        ...(i === 0 && e.networkBandwidthMbps ? { PeakBandwidthInGbps: e.networkBandwidthMbps / 1000 } : {}),
      })),
    },
  };
}

export const ec2Architecture = (e: CatalogEntry): string => (e.arch === 'amd64' ? 'x86_64' : 'arm64');
