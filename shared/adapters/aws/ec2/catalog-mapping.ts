import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { CatalogEntry } from '../../../core/instance-types/types';

const kebab = (s: string | undefined): string | null =>
  s
    ? s
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
    : null;
const NAME = /^([a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

/**
 * A DescribeInstanceTypes entry as a CatalogEntry. Fields the API does not give (network bandwidth in Mbps,
 * on-demand prices) come from the bundled catalog entry of the same name, when there is one.
 * Types that are neither x86_64 nor arm64 (e.g. mac) give undefined.
 */
export function toCatalogEntry(info: InstanceTypeInfo, fromCatalog?: CatalogEntry): CatalogEntry | undefined {
  const name = info.InstanceType;
  if (!name) return undefined;
  const archs = info.ProcessorInfo?.SupportedArchitectures ?? [];
  const arch = archs.includes('x86_64') ? 'amd64' : archs.includes('arm64') ? 'arm64' : undefined;
  if (!arch) return undefined;
  const [family, size = ''] = name.split('.');
  const m = NAME.exec(name);
  const gpus = info.GpuInfo?.Gpus ?? [];
  const accels = [...(info.InferenceAcceleratorInfo?.Accelerators ?? []), ...(info.NeuronInfo?.NeuronDevices ?? [])] as {
    Count?: number;
    Name?: string;
    Manufacturer?: string;
  }[];
  const net = info.NetworkInfo;
  const defaultCard = net?.NetworkCards?.[net.DefaultNetworkCardIndex ?? 0];
  const maxENIs = defaultCard?.MaximumNetworkInterfaces ?? net?.MaximumNetworkInterfaces ?? 0;
  const ipv4PerENI = net?.Ipv4AddressesPerInterface ?? 0;
  const nvme =
    info.InstanceStorageInfo?.NvmeSupport && info.InstanceStorageInfo.NvmeSupport !== 'unsupported' ? (info.InstanceStorageInfo.TotalSizeInGB ?? null) : null;
  return {
    name,
    family,
    size,
    category: m?.[1] ?? fromCatalog?.category ?? family.replace(/[0-9].*$/, ''),
    generation: m ? Number(m[3]) : (fromCatalog?.generation ?? 0),
    vcpu: info.VCpuInfo?.DefaultVCpus ?? fromCatalog?.vcpu ?? 0,
    memoryMiB: info.MemoryInfo?.SizeInMiB ?? fromCatalog?.memoryMiB ?? 0,
    arch,
    gpuCount: gpus.reduce((n, g) => n + (g.Count ?? 0), 0),
    gpuManufacturer: kebab(gpus[0]?.Manufacturer),
    gpuName: kebab(gpus[0]?.Name),
    gpuMemoryMiB: gpus[0]?.MemoryInfo?.SizeInMiB ?? null,
    hypervisor: info.Hypervisor ?? null,
    bareMetal: info.BareMetal ?? false,
    maxENIs,
    ipv4PerENI,
    maxPodsEni: maxENIs > 0 && ipv4PerENI > 0 ? maxENIs * (ipv4PerENI - 1) + 2 : (fromCatalog?.maxPodsEni ?? 110),
    localNvmeGB: nvme,
    networkBandwidthMbps: fromCatalog?.networkBandwidthMbps ?? (defaultCard?.PeakBandwidthInGbps ? Math.round(defaultCard.PeakBandwidthInGbps * 1000) : null),
    onDemandUsdPerHour: fromCatalog?.onDemandUsdPerHour ?? {},
    acceleratorCount: accels.length ? accels.reduce((n, a) => n + (a.Count ?? 0), 0) : null,
    acceleratorName: kebab(accels[0]?.Name),
    // Neuron devices (Inferentia 2, Trainium) name no manufacturer: Karpenter labels them `aws`.
    acceleratorManufacturer: kebab(accels[0]?.Manufacturer) ?? (info.NeuronInfo?.NeuronDevices?.length ? 'aws' : null),
    ...(info.SupportedUsageClasses ? { spotSupported: info.SupportedUsageClasses.includes('spot') } : {}),
    ...ebsAttachments(info, fromCatalog),
    ...labelAttributes(info),
  };
}

/** What Karpenter labels and counts from the live answer and the bundled catalog lacks (CatalogEntry's optional attributes). */
function labelAttributes(info: InstanceTypeInfo): Partial<CatalogEntry> {
  const out: Partial<CatalogEntry> = {};
  const cpu = info.ProcessorInfo;
  const manufacturer = kebab(cpu?.Manufacturer);
  if (manufacturer) out.cpuManufacturer = manufacturer;
  if (cpu?.SustainedClockSpeedInGhz !== undefined) out.cpuClockMhz = Math.round(cpu.SustainedClockSpeedInGhz * 1000);
  const ebs = info.EbsInfo;
  if (ebs?.EbsOptimizedSupport === 'default' && ebs.EbsOptimizedInfo?.MaximumBandwidthInMbps !== undefined) {
    out.ebsBandwidthMbps = ebs.EbsOptimizedInfo.MaximumBandwidthInMbps;
  }
  if (info.NetworkInfo?.EncryptionInTransitSupported !== undefined) out.encryptionInTransit = info.NetworkInfo.EncryptionInTransitSupported;
  if (info.NitroEnclavesSupport !== undefined) out.nitroEnclaves = info.NitroEnclavesSupport === 'supported';
  const efa = info.NetworkInfo?.EfaInfo?.MaximumEfaInterfaces;
  if (efa) out.efaMax = efa;
  const cards = info.NetworkInfo?.NetworkCards ?? [];
  if (cards.length > 0) {
    out.networkCards = cards.length;
    const byIndex: number[] = [];
    for (const [i, c] of cards.entries()) byIndex[c.NetworkCardIndex ?? i] = c.MaximumNetworkInterfaces ?? 0;
    out.networkCardMaxENIs = Array.from(byIndex, (n) => n ?? 0);
  }
  if (info.NetworkInfo?.EnaSupport === 'unsupported') out.enaUnsupported = true;
  const cores = info.NeuronInfo?.NeuronDevices?.[0]?.CoreInfo?.Count;
  if (cores) out.neuronCoresPerDevice = cores;
  return out;
}

/** The EBS attachment limit from the live answer (EbsInfo), else the bundled table's. */
function ebsAttachments(info: InstanceTypeInfo, fromCatalog?: CatalogEntry): Pick<CatalogEntry, 'ebsAttachments'> {
  const ebs = info.EbsInfo;
  if (ebs?.MaximumEbsAttachments) return { ebsAttachments: { max: ebs.MaximumEbsAttachments, shared: ebs.AttachmentLimitType !== 'dedicated' } };
  return fromCatalog?.ebsAttachments ? { ebsAttachments: fromCatalog.ebsAttachments } : {};
}
