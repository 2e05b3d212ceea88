/**
 * Well-known labels of a catalog entry (docs/karpenter-reference.md §1.4). A label is omitted when the type lacks the attribute,
 * so a missing key means DoesNotExist (e.g. `instance-gpu-count Exists` selects only GPU types).
 */
import { Label } from '../model/labels';
import type { CatalogEntry } from './types';

/** Labels that depend only on the entry (not on region, OS or node class). */
export function entryLabels(e: CatalogEntry): Record<string, string> {
  const l: Record<string, string> = {
    [Label.instanceType]: e.name,
    [Label.arch]: e.arch,
    [Label.instanceCategory]: e.category,
    [Label.instanceFamily]: e.family,
    [Label.instanceGeneration]: String(e.generation),
    [Label.instanceSize]: e.size,
    [Label.instanceCpu]: String(e.vcpu),
    [Label.instanceMemory]: String(e.memoryMiB),
  };
  if (e.hypervisor) l[Label.instanceHypervisor] = e.hypervisor;
  // GPU labels exist when the type reports a GPU (fractional-GPU types report a name with count 0).
  if (e.gpuName || e.gpuCount > 0) {
    l[Label.instanceGpuCount] = String(e.gpuCount);
    if (e.gpuName) l[Label.instanceGpuName] = e.gpuName;
    if (e.gpuManufacturer) l[Label.instanceGpuManufacturer] = e.gpuManufacturer;
    if (e.gpuMemoryMiB) l[Label.instanceGpuMemory] = String(e.gpuMemoryMiB);
  }
  if (e.acceleratorName) {
    l[Label.instanceAcceleratorName] = e.acceleratorName;
    if (e.acceleratorManufacturer) l[Label.instanceAcceleratorManufacturer] = e.acceleratorManufacturer;
    if (e.acceleratorCount != null) l[Label.instanceAcceleratorCount] = String(e.acceleratorCount);
  }
  if (e.localNvmeGB) l[Label.instanceLocalNvme] = String(e.localNvmeGB);
  if (e.networkBandwidthMbps != null) l[Label.instanceNetworkBandwidth] = String(e.networkBandwidthMbps);
  // Karpenter reads flex from the name (`c7i-flex.large`), so every type has the label.
  l[Label.instanceCapabilityFlex] = String(e.family.includes('-flex'));
  // nodewright launches shared-tenancy instances only (Karpenter's requirement is In [default, dedicated]).
  l[Label.instanceTenancy] = 'default';
  if (e.cpuManufacturer) l[Label.instanceCpuManufacturer] = e.cpuManufacturer;
  if (e.cpuClockMhz != null) l[Label.instanceCpuSustainedClockSpeedMhz] = String(e.cpuClockMhz);
  if (e.ebsBandwidthMbps != null) l[Label.instanceEbsBandwidth] = String(e.ebsBandwidthMbps);
  if (e.encryptionInTransit != null) l[Label.instanceEncryptionInTransitSupported] = String(e.encryptionInTransit);
  if (e.nitroEnclaves != null) l[Label.nitroSandbox] = String(e.nitroEnclaves);
  return l;
}

/** Adds the node-class/region dependent labels (os, region, windows build) to the entry's labels. */
export function withContextLabels(
  base: Record<string, string>,
  os: 'linux' | 'windows',
  region: string,
  windowsBuild: string | undefined,
): Readonly<Record<string, string>> {
  const l: Record<string, string> = { ...base, [Label.os]: os };
  if (region) l[Label.region] = region;
  if (windowsBuild) l[Label.windowsBuild] = windowsBuild;
  return Object.freeze(l);
}

/** True when the labels satisfy every requirement (used for the node class's AMI requirements). */
export function labelsMatch(labels: Record<string, string>, reqs: { key: string; operator: string; values?: string[] }[]): boolean {
  for (const r of reqs) {
    const v = labels[r.key];
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        if (v === undefined || !values.includes(v)) return false;
        break;
      case 'NotIn':
        if (v !== undefined && values.includes(v)) return false;
        break;
      case 'Exists':
        if (v === undefined) return false;
        break;
      case 'DoesNotExist':
        if (v !== undefined) return false;
        break;
      case 'Gt':
      case 'Lt':
      case 'Gte':
      case 'Lte': {
        const n = Number(v);
        const bound = Number(values[0]);
        if (v === undefined || !Number.isFinite(n) || !Number.isFinite(bound)) return false;
        if ((r.operator === 'Gt' && !(n > bound)) || (r.operator === 'Lt' && !(n < bound))) return false;
        if ((r.operator === 'Gte' && !(n >= bound)) || (r.operator === 'Lte' && !(n <= bound))) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}
