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

  async entries(): Promise<CatalogEntry[]> {
    if (this.fresh(this.types, INSTANCE_TYPES_TTL_MS)) return this.types.value;
    try {
      const out: CatalogEntry[] = [];
      const pages = paginateDescribeInstanceTypes(
        { client: this.deps.ec2 },
        {
          Filters: [
            { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
            { Name: 'supported-virtualization-type', Values: ['hvm'] },
          ],
        },
      );
      for await (const page of pages) {
        for (const info of page.InstanceTypes ?? []) {
          const entry = toCatalogEntry(info, info.InstanceType ? this.catalogByName.get(info.InstanceType) : undefined);
          if (entry) out.push(entry);
        }
      }
      out.sort((a, b) => a.name.localeCompare(b.name));
      this.types = { value: out, at: this.deps.now() };
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeInstanceTypes', mapAwsError(e, 'DescribeInstanceTypes'));
      return this.types?.value ?? [...this.deps.catalog];
    }
  }

  /** Zones each type is offered in (DescribeInstanceTypeOfferings); undefined when unknown (= every zone). */
  async zonesByType(): Promise<Record<string, string[]> | undefined> {
    if (this.fresh(this.offerings, INSTANCE_TYPES_TTL_MS)) return this.offerings.value;
    try {
      const out: Record<string, string[]> = {};
      for await (const page of paginateDescribeInstanceTypeOfferings({ client: this.deps.ec2 }, { LocationType: 'availability-zone' })) {
        for (const o of page.InstanceTypeOfferings ?? []) {
          if (!o.InstanceType || !o.Location) continue;
          (out[o.InstanceType] ??= []).push(o.Location);
        }
      }
      for (const zones of Object.values(out)) zones.sort();
      this.offerings = { value: out, at: this.deps.now() };
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeInstanceTypeOfferings', mapAwsError(e, 'DescribeInstanceTypeOfferings'));
      return this.offerings?.value;
    }
  }

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

  /** Latest Linux/UNIX spot price per `${type}/${zone}` (DescribeSpotPriceHistory with StartTime = now). */
  async spotPrices(): Promise<Record<string, number>> {
    if (this.fresh(this.spot, SPOT_PRICES_TTL_MS)) return this.spot.value;
    try {
      const latest = new Map<string, { price: number; at: number }>();
      const pages = paginateDescribeSpotPriceHistory(
        { client: this.deps.ec2 },
        { ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'], StartTime: new Date(this.deps.now()) },
      );
      for await (const page of pages) {
        for (const p of page.SpotPriceHistory ?? []) {
          const price = Number(p.SpotPrice);
          if (!p.InstanceType || !p.AvailabilityZone || !Number.isFinite(price)) continue;
          const key = `${p.InstanceType}/${p.AvailabilityZone}`;
          const at = p.Timestamp ? new Date(p.Timestamp).getTime() : 0;
          const cur = latest.get(key);
          if (!cur || at > cur.at) latest.set(key, { price, at });
        }
      }
      const out = Object.fromEntries([...latest].map(([k, v]) => [k, v.price]));
      this.spot = { value: out, at: this.deps.now() };
      return out;
    } catch (e) {
      this.deps.onFallback?.('DescribeSpotPriceHistory', mapAwsError(e, 'DescribeSpotPriceHistory'));
      return this.spot?.value ?? {};
    }
  }
}
