/**
 * Capacity and overhead of one instance type for one node-class profile (docs/karpenter-reference.md §3.1).
 * allocatable = capacity − kubeReserved − systemReserved − eviction threshold.
 */
import { Resource, type ResourceList } from '../model/resources';
import type { BuildProfile, Threshold } from './profile';
import type { CatalogEntry, Overhead } from './types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const PodENIResource = 'vpc.amazonaws.com/pod-eni';

/** kube-reserved CPU tiers: 6 % of the first core, 1 % of the second, 0.5 % of cores 3–4, 0.25 % above. */
const CPU_TIERS = [
  { start: 0, end: 1000, fraction: 0.06 },
  { start: 1000, end: 2000, fraction: 0.01 },
  { start: 2000, end: 4000, fraction: 0.005 },
  { start: 4000, end: Number.MAX_SAFE_INTEGER, fraction: 0.0025 },
] as const;

/** kube-reserved CPU in millicores for a CPU capacity in millicores (each tier truncated to whole millicores). */
function kubeReservedCpu(cpuMilli: number): number {
  let total = 0;
  for (const t of CPU_TIERS) {
    if (cpuMilli < t.start) break;
    const span = Math.min(cpuMilli, t.end) - t.start;
    total += Math.trunc(span * t.fraction);
  }
  return total;
}

/** Accelerator resources: GPUs by manufacturer, AWS Inferentia/Trainium as neuron devices, Gaudi. */
function acceleratorResources(e: CatalogEntry): ResourceList {
  const r: ResourceList = {};
  if (e.gpuCount > 0) {
    if (e.gpuManufacturer === 'nvidia') r[Resource.nvidiaGpu] = e.gpuCount;
    else if (e.gpuManufacturer === 'amd') r[Resource.amdGpu] = e.gpuCount;
    else if (e.gpuManufacturer === 'habana') r[Resource.habanaGaudi] = e.gpuCount;
  }
  if (e.acceleratorManufacturer === 'aws' && (e.acceleratorCount ?? 0) > 0) {
    r[Resource.awsNeuron] = e.acceleratorCount ?? 0;
    if (e.neuronCoresPerDevice) r[Resource.awsNeuronCore] = (e.acceleratorCount ?? 0) * e.neuronCoresPerDevice;
  }
  if (e.efaMax) r[Resource.efa] = e.efaMax;
  return r;
}

/**
 * Pods the VPC CNI allows: usableENIs × (IPv4PerENI − 1) + 2 on the default network card, where an `efa-only`
 * interface of the node class on card 0 takes an ENI without any IP address.
 */
function eniLimitedPods(e: CatalogEntry, p: BuildProfile): number {
  if (!(e.maxENIs > 0 && e.ipv4PerENI > 0)) return e.maxPodsEni;
  const efaOnly = (p.networkInterfaces ?? []).filter((n) => n.networkCardIndex === 0 && n.interfaceType === 'efa-only').length;
  const usable = Math.max(e.maxENIs - p.reservedENIs - efaOnly, 0);
  if (usable === 0) return 0;
  return usable * (e.ipv4PerENI - 1) + 2;
}

/** Memory capacity in bytes: MiB (−64 MiB on arm64) minus ceil(MiB × VM overhead). */
function memoryCapacity(e: CatalogEntry, vmOverheadPercent: number): number {
  const mib = e.arch === 'arm64' ? e.memoryMiB - 64 : e.memoryMiB;
  const bytes = mib * MiB;
  const overheadMiB = Math.ceil((bytes * vmOverheadPercent) / 1024 / 1024);
  return bytes - overheadMiB * MiB;
}

export interface ComputedResources {
  capacity: ResourceList;
  overhead: Overhead;
  allocatable: ResourceList;
}

function threshold(capacity: number, t: Threshold): number {
  return 'percent' in t ? Math.ceil((capacity / 100) * t.percent) : t.bytes;
}

/** Per-entry values that do not depend on the node class (computed once per entry). */
export interface EntryResources {
  cpuMilli: number;
  kubeReservedCpuMilli: number;
  extended: ResourceList;
}

export function entryResources(e: CatalogEntry): EntryResources {
  const extended = acceleratorResources(e);
  if ((e.branchENIs ?? 0) > 0) extended[PodENIResource] = e.branchENIs ?? 0;
  return { cpuMilli: e.vcpu * 1000, kubeReservedCpuMilli: kubeReservedCpu(e.vcpu * 1000), extended };
}

export function computeResources(e: CatalogEntry, s: EntryResources, p: BuildProfile): ComputedResources {
  const memory = memoryCapacity(e, p.vmOverheadPercent);
  const storage = p.raid0 && (e.localNvmeGB ?? 0) > 0 ? (e.localNvmeGB ?? 0) * 1e9 : p.ephemeralBytes;
  const eniPods = eniLimitedPods(e, p);
  let pods = p.maxPods !== undefined ? p.maxPods : p.traits.eniLimitedPods ? eniPods : 110;
  if (p.podsPerCore !== undefined && p.podsPerCore > 0 && p.traits.podsPerCore) pods = Math.min(pods, p.podsPerCore * e.vcpu);

  const capacity: ResourceList = {
    [Resource.cpu]: s.cpuMilli,
    [Resource.memory]: memory,
    [Resource.ephemeralStorage]: storage,
    [Resource.pods]: pods,
    ...s.extended,
  };
  // networkInterfaces on the node class decide the EFA count: its efa-only interfaces, not the type's maximum.
  if (p.networkInterfaces) {
    const efas = p.networkInterfaces.filter((n) => n.interfaceType === 'efa-only').length;
    if (efas > 0) capacity[Resource.efa] = efas;
    else delete capacity[Resource.efa];
  }
  // Windows nodes advertise their secondary IPv4 addresses (the VPC resource controller's IPv4 per ENI − 1).
  if (p.traits.os === 'windows' && e.ipv4PerENI > 1) capacity[Resource.privateIPv4Address] = e.ipv4PerENI - 1;

  const memPods = p.traits.eniLimitedMemoryOverhead ? eniPods : pods;
  const kubeReserved: ResourceList = {
    [Resource.cpu]: s.kubeReservedCpuMilli,
    [Resource.memory]: (11 * memPods + 255) * MiB,
    [Resource.ephemeralStorage]: GiB,
    ...p.kubeReserved,
  };
  const systemReserved: ResourceList = { ...p.systemReserved };
  const evictionThreshold: ResourceList = {
    [Resource.memory]: p.evictionMemory ? threshold(memory, p.evictionMemory) : 100 * MiB,
    [Resource.ephemeralStorage]: p.evictionNodefs ? threshold(storage, p.evictionNodefs) : Math.ceil((storage / 100) * 10),
  };

  const allocatable: ResourceList = {};
  for (const k in capacity) {
    const v = capacity[k] - (kubeReserved[k] ?? 0) - (systemReserved[k] ?? 0) - (evictionThreshold[k] ?? 0);
    allocatable[k] = Math.max(0, v);
  }
  return { capacity, overhead: { kubeReserved, systemReserved, evictionThreshold }, allocatable };
}
