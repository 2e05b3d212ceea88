/**
 * The CLI's `--instance-types FILE.json`: a JSON array whose entries are either
 *  - the catalog form (the fields of a bundled catalog entry, CatalogEntry in types.ts; `name`, `vcpu`, `memoryMiB`
 *    required) — built exactly like the bundled catalog by buildInstanceTypes, in opts.zones; or
 *  - the explicit form `{name, arch, os, capacity, allocatable?, offerings, labels?}` — capacity and
 *    allocatable used as given (no overhead; allocatable defaults to capacity), zones from the offerings.
 * Bad input throws InstanceTypesFileInvalidError naming the entry index and the field.
 */
import type * as z from '../zod';
import { Label } from '../model/labels';
import { formatResource, parseResource } from '../model/quantity';
import { Resource, type ResourceList } from '../model/resources';
import { buildInstanceTypes, type BuildInstanceTypesOptions } from './build';
import { CatalogFormEntry, ExplicitFormEntry, NAME_RE } from './custom-schema';
import { unavailableSet } from './offerings';
import type { CatalogEntry, InstanceType, Offering } from './types';

export class InstanceTypesFileInvalidError extends Error {
  override readonly name = 'InstanceTypesFileInvalidError' as const;
  /** entryIndex is the 0-based array index (-1 for the file as a whole); path is the field, dotted. */
  constructor(
    readonly entryIndex: number,
    readonly path: string,
    readonly problem: string,
    entryName?: string,
  ) {
    super(`instance types file: ${entryIndex < 0 ? '' : `entry [${entryIndex}]${entryName ? ` (${entryName})` : ''}: `}${path ? `${path}: ` : ''}${problem}`);
  }
}
export const isInstanceTypesFileInvalidError = (e: unknown): e is InstanceTypesFileInvalidError =>
  e instanceof Error && e.name === 'InstanceTypesFileInvalidError';

function validate<T>(schema: z.ZodMiniType<T>, item: unknown, index: number, name: string | undefined): T {
  const r = schema.safeParse(item);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new InstanceTypesFileInvalidError(index, issue.path.map(String).join('.'), issue.message, name);
}

function toCatalogEntry(e: CatalogFormEntry, index: number): CatalogEntry {
  const m = NAME_RE.exec(e.name);
  const [family, size] = e.name.split('.');
  const category = e.category ?? m?.[1];
  const generation = e.generation ?? (m ? Number(m[3]) : undefined);
  if (category === undefined || generation === undefined) {
    throw new InstanceTypesFileInvalidError(index, 'category', 'cannot be derived from the name; give "category" and "generation"', e.name);
  }
  const sizeValue = e.size ?? size;
  return {
    ...e,
    family: e.family ?? family,
    size: sizeValue,
    category,
    generation,
    bareMetal: e.bareMetal ?? sizeValue.includes('metal'),
  };
}

function parseResources(raw: Record<string, string | number>, index: number, field: string, name: string): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(raw)) {
    let n: number;
    try {
      n = parseResource(k, v);
    } catch {
      throw new InstanceTypesFileInvalidError(index, `${field}.${k}`, `invalid quantity ${JSON.stringify(v)}`, name);
    }
    if (n < 0) throw new InstanceTypesFileInvalidError(index, `${field}.${k}`, `must not be negative (${JSON.stringify(v)})`, name);
    out[k] = n;
  }
  return out;
}

/** Labels nodewright can derive for an explicit entry; the entry's own labels win. */
function explicitLabels(e: ExplicitFormEntry, capacity: ResourceList, region: string): Record<string, string> {
  const l: Record<string, string> = { [Label.instanceType]: e.name, [Label.arch]: e.arch, [Label.os]: e.os };
  if (region) l[Label.region] = region;
  const m = NAME_RE.exec(e.name);
  if (m) {
    l[Label.instanceCategory] = m[1];
    l[Label.instanceFamily] = e.name.split('.')[0];
    l[Label.instanceGeneration] = m[3];
    l[Label.instanceSize] = m[4];
  }
  if (capacity.cpu % 1000 === 0) l[Label.instanceCpu] = String(capacity.cpu / 1000);
  l[Label.instanceMemory] = String(Math.floor(capacity.memory / 2 ** 20));
  for (const [res, maker] of [
    [Resource.nvidiaGpu, 'nvidia'],
    [Resource.amdGpu, 'amd'],
    [Resource.habanaGaudi, 'habana'],
  ] as const) {
    if ((capacity[res] ?? 0) > 0) {
      l[Label.instanceGpuCount] = String(capacity[res]);
      l[Label.instanceGpuManufacturer] = maker;
    }
  }
  return { ...l, ...e.labels };
}

function explicitInstanceType(e: ExplicitFormEntry, index: number, opts: BuildInstanceTypesOptions, unavailable: Set<string>): InstanceType {
  const capacity = parseResources(e.capacity, index, 'capacity', e.name);
  for (const k of [Resource.cpu, Resource.memory]) {
    if (capacity[k] === undefined) throw new InstanceTypesFileInvalidError(index, `capacity.${k}`, 'is required', e.name);
  }
  capacity[Resource.pods] ??= 110;
  const given = e.allocatable ? parseResources(e.allocatable, index, 'allocatable', e.name) : {};
  const allocatable: ResourceList = { ...capacity, ...given };
  const kubeReserved: ResourceList = {};
  for (const k in allocatable) {
    if (capacity[k] === undefined) throw new InstanceTypesFileInvalidError(index, `allocatable.${k}`, 'has no capacity', e.name);
    if (allocatable[k] > capacity[k]) {
      throw new InstanceTypesFileInvalidError(
        index,
        `allocatable.${k}`,
        `${formatResource(k, allocatable[k])} exceeds capacity ${formatResource(k, capacity[k])}`,
        e.name,
      );
    }
    if (capacity[k] - allocatable[k] > 0) kubeReserved[k] = capacity[k] - allocatable[k];
  }
  const offerings: Offering[] = e.offerings.map((o) => {
    const off: Offering = {
      zone: o.zone,
      capacityType: o.capacityType,
      price: o.price,
      available: o.available && !unavailable.has(`${o.capacityType}:${e.name}:${o.zone}`),
    };
    if (o.zoneId) off.zoneId = o.zoneId;
    return off;
  });
  const labels = explicitLabels(e, capacity, opts.region);
  const accelerated = [Resource.nvidiaGpu, Resource.amdGpu, Resource.habanaGaudi, Resource.awsNeuron].some((r) => (capacity[r] ?? 0) > 0);
  return {
    name: e.name,
    arch: e.arch,
    os: e.os,
    labels,
    capacity,
    overhead: { kubeReserved, systemReserved: {}, evictionThreshold: {} },
    allocatable,
    offerings,
    exotic: e.exotic ?? (accelerated || (labels[Label.instanceSize] ?? '').includes('metal')),
  };
}

/**
 * Parses the contents of an `--instance-types` file (already JSON.parse'd) into instance types, in file order.
 * opts are those of buildInstanceTypes (region, zones, node class, prices, ICE marks) and apply to catalog-form
 * entries; explicit entries get their zones from their offerings (ICE marks in opts.unavailable still apply).
 */
export function parseInstanceTypesFile(json: unknown, opts: BuildInstanceTypesOptions): InstanceType[] {
  if (!Array.isArray(json)) throw new InstanceTypesFileInvalidError(-1, '', 'expected a JSON array of instance types');
  if (json.length === 0) throw new InstanceTypesFileInvalidError(-1, '', 'the array is empty');
  const unavailable = unavailableSet(opts.unavailable);
  const seen = new Map<string, number>();
  const result: (InstanceType | CatalogEntry)[] = json.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new InstanceTypesFileInvalidError(index, '', 'expected an object');
    }
    const rec = item as Record<string, unknown>;
    const name = typeof rec.name === 'string' ? rec.name : undefined;
    if (name !== undefined && seen.has(name)) {
      throw new InstanceTypesFileInvalidError(index, 'name', `duplicate of entry [${seen.get(name)}]`, name);
    }
    if (name !== undefined) seen.set(name, index);
    if ('capacity' in rec) return explicitInstanceType(validate(ExplicitFormEntry, item, index, name), index, opts, unavailable);
    if ('vcpu' in rec || 'memoryMiB' in rec) return toCatalogEntry(validate(CatalogFormEntry, item, index, name), index);
    throw new InstanceTypesFileInvalidError(
      index,
      '',
      'expected either the catalog form (vcpu, memoryMiB, …) or the explicit form (capacity, offerings, …)',
      name,
    );
  });
  const catalogEntries = result.filter((r): r is CatalogEntry => 'vcpu' in r);
  const built = new Map(buildInstanceTypes(catalogEntries, opts).map((it) => [it.name, it]));
  return result.map((r) => ('vcpu' in r ? (built.get(r.name) as InstanceType) : r));
}
