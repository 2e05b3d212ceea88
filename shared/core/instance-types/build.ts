/**
 * Builds the scheduler's instance types for one EC2NodeClass from catalog entries (docs/karpenter-reference.md §3.1–3.2):
 * capacity, overhead and allocatable, well-known labels, and priced offerings per zone × capacity type.
 *
 * Pure and fast: per-entry work that does not depend on the call (resources, base labels, exoticness, spot
 * estimates, label objects) is computed once per entry object and reused; entries are treated as immutable.
 */
import type { EC2NodeClass, NetworkInterface } from '../model/karpenter';
import type { OfferingKey } from '../ports/state-store';
import { computeResources, entryResources, type EntryResources } from './capacity';
import { entryLabels, labelsMatch, withContextLabels } from './labels';
import { buildOfferings, unavailableSet, type OfferingContext, type SpotEstimateCache } from './offerings';
import { resolveProfile, type BuildProfile } from './profile';
import type { CatalogEntry, InstanceType } from './types';
import { EBS_CSI_DRIVER, ebsVolumeLimit, nodeVolumes } from './volume-limits';

export { KubeletConfigurationInvalidError } from './profile';

export interface BuildInstanceTypesOptions {
  region: string;
  /** Zones the node class can launch into (from its subnets); offerings are made per zone. */
  zones: string[];
  /** Kubelet settings, AMI family etc. change capacity/allocatable. */
  nodeClass?: EC2NodeClass;
  /**
   * On-demand and spot prices keyed `${instanceType}/${zone}` or `${instanceType}` (the zonal key wins);
   * missing → on-demand from the catalog for the region, spot from nodewright's estimate (priceEstimated).
   */
  onDemandPrices?: Record<string, number>;
  spotPrices?: Record<string, number>;
  /** Offerings to mark unavailable (ICE cache). */
  unavailable?: OfferingKey[];
  /**
   * Zones each instance type is offered in (from DescribeInstanceTypeOfferings). No map = every type is offered
   * in every zone; with a map, a type without a key is offered in no zone (as in Karpenter).
   */
  zonesByType?: Record<string, string[]>;
  /** VM_MEMORY_OVERHEAD_PERCENT, default 0.075. */
  vmMemoryOverheadPercent?: number;
  /** RESERVED_ENIS, default 0. */
  reservedENIs?: number;
  /** Zone → zone id; defaults to the node class's resolved subnets (status.subnets). */
  zoneIds?: Record<string, string>;
}

interface EntryStatic {
  resources: EntryResources;
  baseLabels: Record<string, string>;
  exotic: boolean;
  labels: Map<string, Readonly<Record<string, string>>>;
  spot: SpotEstimateCache;
}

const statics = new WeakMap<CatalogEntry, EntryStatic>();

function entryStatic(e: CatalogEntry): EntryStatic {
  let s = statics.get(e);
  if (!s) {
    s = {
      resources: entryResources(e),
      baseLabels: entryLabels(e),
      exotic: isExotic(e),
      labels: new Map(),
      spot: new Map(),
    };
    statics.set(e, s);
  }
  return s;
}

/** GPU / accelerator / bare-metal types are only chosen when requested or nothing else fits (docs/karpenter-reference.md §2.8). */
function isExotic(e: CatalogEntry): boolean {
  return e.gpuCount > 0 || e.gpuName != null || (e.acceleratorCount ?? 0) > 0 || e.acceleratorName != null || e.bareMetal;
}

function labelsFor(s: EntryStatic, p: BuildProfile, region: string): Readonly<Record<string, string>> {
  const key = `${p.traits.os}|${region}|${p.traits.windowsBuild ?? ''}`;
  let l = s.labels.get(key);
  if (!l) {
    l = withContextLabels(s.baseLabels, p.traits.os, region, p.traits.windowsBuild);
    s.labels.set(key, l);
  }
  return l;
}

function isCompatible(e: CatalogEntry, p: BuildProfile, labels: Record<string, string>): boolean {
  // Windows AMIs are x86_64 only.
  if (p.traits.os === 'windows' && e.arch !== 'amd64') return false;
  // AL2023 does not support a1 (Karpenter's amiFamilyCompatibility).
  if (p.traits.family === 'AL2023' && e.family === 'a1') return false;
  if (p.networkInterfaces && !supportsNetworkInterfaces(e, p.networkInterfaces)) return false;
  return !p.amiRequirements || p.amiRequirements.some((reqs) => labelsMatch(labels, reqs));
}

/**
 * Karpenter's network-interface compatibility: the type supports ENA, has each configured network card and device
 * index, and at least as many EFA interfaces as the node class's efa-only ones. A card's interface count is the live
 * answer's; the bundled catalog knows the default card's only (`maxENIs`), which is used for the others too.
 */
function supportsNetworkInterfaces(e: CatalogEntry, nics: readonly NetworkInterface[]): boolean {
  if (e.enaUnsupported) return false;
  const cards = e.networkCards ?? 1;
  for (const n of nics) {
    if (n.networkCardIndex >= cards) return false;
    if (n.deviceIndex >= (e.networkCardMaxENIs?.[n.networkCardIndex] ?? e.maxENIs)) return false;
  }
  const efas = nics.filter((n) => n.interfaceType === 'efa-only').length;
  return efas === 0 || efas <= (e.efaMax ?? 0);
}

function zoneIdMap(opts: BuildInstanceTypesOptions): Map<string, string> {
  const m = new Map<string, string>();
  for (const s of opts.nodeClass?.status?.subnets ?? []) if (s.zoneID) m.set(s.zone, s.zoneID);
  for (const [zone, id] of Object.entries(opts.zoneIds ?? {})) m.set(zone, id);
  return m;
}

/**
 * The instance types of `entries` as the scheduler sees them for one node class.
 * Throws KubeletConfigurationInvalidError when the node class's evictionHard values cannot be parsed.
 */
export function buildInstanceTypes(entries: CatalogEntry[], opts: BuildInstanceTypesOptions): InstanceType[] {
  const profile = resolveProfile(opts.nodeClass, opts.vmMemoryOverheadPercent ?? 0.075, opts.reservedENIs ?? 0);
  const ctx: OfferingContext = {
    region: opts.region,
    zones: [...new Set(opts.zones)],
    zoneIds: zoneIdMap(opts),
    onDemandPrices: opts.onDemandPrices,
    spotPrices: opts.spotPrices,
    unavailable: unavailableSet(opts.unavailable),
    zonesByType: opts.zonesByType,
  };
  const out: InstanceType[] = new Array(entries.length);
  const ownVolumes = nodeVolumes(opts.nodeClass);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const s = entryStatic(e);
    const labels = labelsFor(s, profile, opts.region);
    const r = computeResources(e, s.resources, profile);
    out[i] = {
      name: e.name,
      arch: e.arch,
      os: profile.traits.os,
      labels: labels as Record<string, string>,
      capacity: r.capacity,
      overhead: r.overhead,
      allocatable: r.allocatable,
      offerings: buildOfferings(e, ctx, isCompatible(e, profile, labels), s.spot),
      exotic: s.exotic,
    };
    if (e.ebsAttachments) out[i].volumeLimits = { [EBS_CSI_DRIVER]: ebsVolumeLimit(e.ebsAttachments, ownVolumes, e.maxENIs) };
  }
  return out;
}
