import type { CapacityTypeValue } from '../model/labels';
import type { ResourceList } from '../model/resources';

/** One place an instance type can be launched: (zone × capacity type), with a price. */
export interface Offering {
  zone: string;
  zoneId?: string;
  capacityType: CapacityTypeValue;
  /** USD per hour. */
  price: number;
  /** False when not offered in the zone, ICE-cached, unpriced or zonally shifted. */
  available: boolean;
  /** True when the price is nodewright's estimate rather than a quoted price. */
  priceEstimated?: boolean;
  reservationId?: string;
  /** The price before a NodeOverlay changed it (shared/core/instance-types/overlays.ts); absent = not overlaid. */
  basePrice?: number;
  /** The NodeOverlay that set `price`. */
  priceOverlay?: string;
}

/** Overhead subtracted from capacity to get allocatable (docs/karpenter-reference.md §3.1). */
export interface Overhead {
  kubeReserved: ResourceList;
  systemReserved: ResourceList;
  evictionThreshold: ResourceList;
}

/**
 * An instance type as the scheduler sees it, for one EC2NodeClass (kubelet settings change allocatable).
 * `labels` carry every well-known label value the type has (a missing key = DoesNotExist);
 * zone and capacity-type come from `offerings`.
 */
export interface InstanceType {
  name: string;
  arch: 'amd64' | 'arm64';
  os: 'linux' | 'windows';
  labels: Record<string, string>;
  capacity: ResourceList;
  overhead: Overhead;
  /** capacity − kubeReserved − systemReserved − eviction. */
  allocatable: ResourceList;
  offerings: Offering[];
  /** GPU / accelerator / metal: only chosen when requested or nothing else fits (docs/karpenter-reference.md §2.8). */
  exotic: boolean;
  /** CSI volumes a node can attach, per driver name (e.g. `ebs.csi.aws.com`); a driver not listed has no known limit. */
  volumeLimits?: Readonly<Record<string, number>>;
  /** NodeOverlays that added extended resources to `capacity` and `allocatable`. */
  capacityOverlays?: string[];
}

/** The raw catalog entry (bundled from ../shared/data, see shared/catalog/PROVENANCE.md). */
export interface CatalogEntry {
  name: string;
  family: string;
  category: string;
  generation: number;
  size: string;
  vcpu: number;
  memoryMiB: number;
  arch: 'amd64' | 'arm64';
  gpuCount: number;
  gpuManufacturer: string | null;
  gpuName: string | null;
  gpuMemoryMiB: number | null;
  hypervisor: string | null;
  bareMetal: boolean;
  maxENIs: number;
  ipv4PerENI: number;
  maxPodsEni: number;
  localNvmeGB: number | null;
  networkBandwidthMbps: number | null;
  onDemandUsdPerHour: Record<string, number>;
  acceleratorCount: number | null;
  acceleratorName: string | null;
  acceleratorManufacturer: string | null;
  /** Branch ENIs for security groups for pods (`vpc.amazonaws.com/pod-eni`); 0/absent when not trunking-compatible. */
  branchENIs?: number;
  /** Network cards (DescribeInstanceTypes' NetworkInfo.NetworkCards); absent or null (unknown) = 1. Checked against EC2NodeClass networkInterfaces. */
  networkCards?: number | null;
  /** Network interfaces per card, by card index (live answer only; the bundled catalog knows the default card's, `maxENIs`). */
  networkCardMaxENIs?: number[];
  /** The type has no ENA support (`EnaSupport: unsupported`): no EC2NodeClass networkInterfaces can be configured on it. */
  enaUnsupported?: boolean;
  /** Where the vcpu/memory/arch/GPU values came from, e.g. `karpenter-docs@692ccdd0` (see shared/catalog/PROVENANCE.md). */
  specSource?: string;
  /** Sold as spot (DescribeInstanceTypes' SupportedUsageClasses); absent in the bundled catalog (offerings.ts decides). */
  spotSupported?: boolean;
  /** EBS attachment limit (shared/catalog/ebs-volume-limits.json); absent = no limit known. */
  ebsAttachments?: { max: number; shared: boolean };
  /**
   * Attributes DescribeInstanceTypes gives and the bundled catalog does not (its sources do not carry them):
   * absent = unknown, and the matching well-known label is then absent (DoesNotExist), as Karpenter does when EC2
   * omits the attribute.
   */
  /** `ProcessorInfo.Manufacturer`, lower-kebab (`intel`, `amd`, `aws`, `apple`). */
  cpuManufacturer?: string;
  /** `ProcessorInfo.SustainedClockSpeedInGhz` × 1000, rounded. */
  cpuClockMhz?: number;
  /** `EbsInfo.EbsOptimizedInfo.MaximumBandwidthInMbps`, when EBS optimization is the default. */
  ebsBandwidthMbps?: number;
  /** `NetworkInfo.EncryptionInTransitSupported`. */
  encryptionInTransit?: boolean;
  /** `NitroEnclavesSupport === 'supported'`. */
  nitroEnclaves?: boolean;
  /** `NetworkInfo.EfaInfo.MaximumEfaInterfaces` (`vpc.amazonaws.com/efa`). */
  efaMax?: number;
  /** `NeuronInfo.NeuronDevices[0].CoreInfo.Count` (`aws.amazon.com/neuroncore` = devices × cores). */
  neuronCoresPerDevice?: number;
}
