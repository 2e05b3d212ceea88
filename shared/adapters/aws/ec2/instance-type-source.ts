import { paginateDescribeInstanceTypeOfferings, paginateDescribeInstanceTypes, paginateDescribeSpotPriceHistory, type EC2Client } from '@aws-sdk/client-ec2';
import type { CatalogEntry } from '../../../core/instance-types/types';
import type { StoredPrices } from '../../../core/ports/state-store';
import { mapAwsError } from '../errors';
import { toCatalogEntry } from './catalog-mapping';

const INSTANCE_TYPES_TTL_MS = 5 * 60_000;
const SPOT_PRICES_TTL_MS = 12 * 3600_000;
/** How long a container reuses the on-demand prices it read from the state store. */
const ON_DEMAND_PRICES_TTL_MS = 5 * 60_000;

interface Cached<T> {
  value: T;
  at: number;
}

export interface InstanceTypeSourceDeps {
  ec2: EC2Client;
  region: string;
  now: () => number;
  catalog: readonly CatalogEntry[];
  /** The region's on-demand list prices as garbage collection stored them from the Price List API. */
  storedPrices?: () => Promise<StoredPrices | undefined>;
  /** Called when an API read failed and cached or bundled data is used instead. */
  onFallback?: (what: string, error: unknown) => void;
}

/**
 * Instance types, zone offerings and spot prices from EC2, each cached (5 min, 5 min, 12 h as Karpenter
 * refreshes them). When a read fails, the last good answer is kept; with none, the bundled catalog is used
 * for types and offerings are treated as "every zone".
 */
export class InstanceTypeSource {
  private types?: Cached<CatalogEntry[]>;
  private offerings?: Cached<Record<string, string[]>>;
  private spot?: Cached<Record<string, number>>;
  private readonly catalogByName: Map<string, CatalogEntry>;

  constructor(private readonly deps: InstanceTypeSourceDeps) {
    this.catalogByName = new Map(deps.catalog.map((c) => [c.name, c]));
  }

  private fresh<T>(c: Cached<T> | undefined, ttl: number): c is Cached<T> {
    return c !== undefined && this.deps.now() - c.at < ttl;
  }

  /**
   * Every instance type of the region. A cold sandbox cannot wait for DescribeInstanceTypes' 14 pages one after
   * another (~300 ms each), so the listing is split by name prefix (typePartitions, balanced on the bundled
   * catalog) into requests of about one page each, sent together; each still pages, so a region with more types
   * than the bundled catalog expects is read whole.
   */
  async entries(): Promise<CatalogEntry[]> {
    if (this.fresh(this.types, INSTANCE_TYPES_TTL_MS)) return this.types.value;
    try {
      const filters = [
        { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
        { Name: 'supported-virtualization-type', Values: ['hvm'] },
      ];
      const parts = await Promise.all(
        (this.partitions ??= typePartitions(this.catalogByName.keys())).map((prefixes) =>
          this.describeTypes({ Filters: [...filters, { Name: 'instance-type', Values: prefixes.map((p) => `${p}*`) }] }),
        ),
      );
      const out = [...new Map(parts.flat().map((e) => [e.name, e])).values()].sort((a, b) => a.name.localeCompare(b.name));
      this.types = { value: out, at: this.deps.now() };
      for (const e of out) this.named.set(e.name, { value: e, at: this.types.at });
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeInstanceTypes', mapAwsError(e, 'DescribeInstanceTypes'));
      return this.types?.value ?? [...this.deps.catalog];
    }
  }

  private partitions?: string[][];
  private readonly named = new Map<string, Cached<CatalogEntry>>();

  /**
   * These instance types only (a launch needs its claim's, at most 60): from the full listing when it is fresh,
   * else one DescribeInstanceTypes by name per 100 names, cached per type. A name EC2 does not answer for is
   * left out; when the read fails, the last answer or the bundled catalog's entry is used.
   */
  async entriesNamed(names: readonly string[]): Promise<CatalogEntry[]> {
    const missing = [...new Set(names)].filter((n) => !this.fresh(this.named.get(n), INSTANCE_TYPES_TTL_MS));
    if (missing.length > 0) {
      try {
        const read = await Promise.all(chunks(missing, 100).map((InstanceTypes) => this.describeTypes({ InstanceTypes })));
        const at = this.deps.now();
        for (const e of read.flat()) this.named.set(e.name, { value: e, at });
      } catch (e) {
        this.deps.onFallback?.('DescribeInstanceTypes', mapAwsError(e, 'DescribeInstanceTypes'));
        for (const n of missing) {
          const bundled = this.catalogByName.get(n);
          if (!this.named.has(n) && bundled) this.named.set(n, { value: bundled, at: -Infinity });
        }
      }
    }
    return names.flatMap((n) => this.named.get(n)?.value ?? []);
  }

  private async describeTypes(input: { Filters?: { Name: string; Values: string[] }[]; InstanceTypes?: string[] }): Promise<CatalogEntry[]> {
    const out: CatalogEntry[] = [];
    for await (const page of paginateDescribeInstanceTypes({ client: this.deps.ec2 }, input as never)) {
      for (const info of page.InstanceTypes ?? []) {
        const entry = toCatalogEntry(info, info.InstanceType ? this.catalogByName.get(info.InstanceType) : undefined);
        if (entry) out.push(entry);
      }
    }
    return out;
  }

  /**
   * Zones each type is offered in (DescribeInstanceTypeOfferings); undefined when unknown (= every zone). With
   * `names`, only those types' (filtered by name, unless the full answer is fresh).
   */
  async zonesByType(names?: readonly string[]): Promise<Record<string, string[]> | undefined> {
    if (this.fresh(this.offerings, INSTANCE_TYPES_TTL_MS)) return this.offerings.value;
    const key = names ? names.join(',') : '';
    const hit = names ? this.namedOfferings.get(key) : undefined;
    if (this.fresh(hit, INSTANCE_TYPES_TTL_MS)) return hit.value;
    try {
      const out: Record<string, string[]> = {};
      const requests = names ? chunks(names, 200).map((Values) => [{ Name: 'instance-type', Values }]) : [undefined];
      await Promise.all(
        requests.map(async (Filters) => {
          for await (const page of paginateDescribeInstanceTypeOfferings({ client: this.deps.ec2 }, { LocationType: 'availability-zone', Filters })) {
            for (const o of page.InstanceTypeOfferings ?? []) {
              if (!o.InstanceType || !o.Location) continue;
              (out[o.InstanceType] ??= []).push(o.Location);
            }
          }
        }),
      );
      for (const zones of Object.values(out)) zones.sort();
      if (names) remember(this.namedOfferings, key, { value: out, at: this.deps.now() });
      else this.offerings = { value: out, at: this.deps.now() };
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeInstanceTypeOfferings', mapAwsError(e, 'DescribeInstanceTypeOfferings'));
      return this.offerings?.value ?? this.namedOfferings.get(key)?.value;
    }
  }

  private readonly namedOfferings = new Map<string, Cached<Record<string, string[]>>>();
  private readonly namedSpot = new Map<string, Cached<Record<string, number>>>();

  private onDemand?: Cached<Record<string, number> | undefined>;

  /**
   * Quoted on-demand prices: the Price List API's, as stored in the state store (refreshed every 12 h by
   * garbage collection), reused for 5 minutes. Undefined when none are stored yet: the offerings then use the
   * bundled catalog's prices (the region's, else us-east-1's marked as estimates). A failed read keeps the last.
   */
  async onDemandPrices(): Promise<Record<string, number> | undefined> {
    if (!this.deps.storedPrices) return undefined;
    const previous = this.onDemand;
    if (previous && this.deps.now() - previous.at < ON_DEMAND_PRICES_TTL_MS) return previous.value;
    try {
      const stored = await this.deps.storedPrices();
      // Same object while the stored prices did not change, so the built instance types are reused.
      const value =
        stored && Object.keys(stored.prices).length > 0
          ? this.onDemandFetchedAt === stored.fetchedAt && previous?.value
            ? previous.value
            : stored.prices
          : undefined;
      this.onDemandFetchedAt = stored?.fetchedAt;
      this.onDemand = { value, at: this.deps.now() };
      return value;
    } catch (e) {
      this.deps.onFallback?.('stored on-demand prices', e);
      return previous?.value;
    }
  }

  private onDemandFetchedAt?: number;

  /** Latest Linux/UNIX spot price per `${type}/${zone}` (DescribeSpotPriceHistory with StartTime = now); with `names`, those types'. */
  async spotPrices(names?: readonly string[]): Promise<Record<string, number>> {
    if (this.fresh(this.spot, SPOT_PRICES_TTL_MS)) return this.spot.value;
    const key = names ? names.join(',') : '';
    const hit = names ? this.namedSpot.get(key) : undefined;
    if (this.fresh(hit, SPOT_PRICES_TTL_MS)) return hit.value;
    try {
      const latest = new Map<string, { price: number; at: number }>();
      const base = { ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'], StartTime: new Date(this.deps.now()) };
      const requests = names ? chunks(names, 100).map((InstanceTypes) => ({ ...base, InstanceTypes })) : [base];
      await Promise.all(
        requests.map(async (input) => {
          for await (const page of paginateDescribeSpotPriceHistory({ client: this.deps.ec2 }, input as never)) {
            for (const p of page.SpotPriceHistory ?? []) {
              const price = Number(p.SpotPrice);
              if (!p.InstanceType || !p.AvailabilityZone || !Number.isFinite(price)) continue;
              const k = `${p.InstanceType}/${p.AvailabilityZone}`;
              const at = p.Timestamp ? new Date(p.Timestamp).getTime() : 0;
              const cur = latest.get(k);
              if (!cur || at > cur.at) latest.set(k, { price, at });
            }
          }
        }),
      );
      const out = Object.fromEntries([...latest].map(([k, v]) => [k, v.price]));
      if (names) remember(this.namedSpot, key, { value: out, at: this.deps.now() });
      else this.spot = { value: out, at: this.deps.now() };
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeSpotPriceHistory', mapAwsError(e, 'DescribeSpotPriceHistory'));
      return this.spot?.value ?? this.namedSpot.get(key)?.value ?? {};
    }
  }
}

/** DescribeInstanceTypes' largest page. */
const TYPES_PAGE = 100;
/** Characters an instance type's name is made of (a family, a dot, a size; `u-6tb1.metal`). */
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-.';

/**
 * Name prefixes that cover every possible instance-type name, grouped into requests of at most one page of the
 * known types each: a first letter with more known types than a page is split by its second character. Prefixes
 * with no known type ride along with the smallest request, so a family new to the region is still listed.
 */
export function typePartitions(known: Iterable<string>): string[][] {
  const count = new Map<string, number>();
  const names = [...known];
  const tally = (p: string) => names.filter((n) => n.startsWith(p)).length;
  let prefixes = [...'abcdefghijklmnopqrstuvwxyz'];
  for (let depth = 1; depth < 3; depth++)
    prefixes = prefixes.flatMap((p) => (p.length === depth && tally(p) > TYPES_PAGE ? [...NAME_CHARS].map((c) => p + c) : [p]));
  for (const p of prefixes) count.set(p, tally(p));
  const groups: { prefixes: string[]; size: number }[] = [];
  const empty: string[] = [];
  for (const p of [...prefixes].sort((a, b) => count.get(b)! - count.get(a)! || a.localeCompare(b))) {
    const n = count.get(p)!;
    if (n === 0) {
      empty.push(p);
      continue;
    }
    const fit = groups.filter((g) => g.size + n <= TYPES_PAGE).sort((a, b) => a.size - b.size)[0];
    if (fit) {
      fit.prefixes.push(p);
      fit.size += n;
    } else groups.push({ prefixes: [p], size: n });
  }
  if (groups.length === 0) groups.push({ prefixes: [], size: 0 });
  // Prefixes no known type has are spread over the requests (a filter takes a bounded number of values).
  for (const p of empty) groups.reduce((a, b) => (b.prefixes.length < a.prefixes.length ? b : a)).prefixes.push(p);
  return groups.map((g) => g.prefixes.sort());
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Keeps the latest answers by name list, a bounded number of them (a warm launch sandbox sees a new list per claim). */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > 32) map.delete(map.keys().next().value!);
}
