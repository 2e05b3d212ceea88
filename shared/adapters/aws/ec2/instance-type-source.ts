import {
  paginateDescribeInstanceTypeOfferings, paginateDescribeInstanceTypes, paginateDescribeSpotPriceHistory, type EC2Client,
} from '@aws-sdk/client-ec2';
import type { CatalogEntry } from '../../../core/instance-types/types';
import { mapAwsError } from '../errors';
import { toCatalogEntry } from './catalog-mapping';

export const INSTANCE_TYPES_TTL_MS = 5 * 60_000;
export const SPOT_PRICES_TTL_MS = 12 * 3600_000;

interface Cached<T> { value: T; at: number }

export interface InstanceTypeSourceDeps {
  ec2: EC2Client;
  region: string;
  now: () => number;
  catalog: readonly CatalogEntry[];
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
      const pages = paginateDescribeInstanceTypes({ client: this.deps.ec2 }, {
        Filters: [{ Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] }, { Name: 'supported-virtualization-type', Values: ['hvm'] }],
      });
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

  /** On-demand prices for the region from the bundled catalog, keyed by instance type. */
  private onDemand?: Record<string, number>;

  /** On-demand prices from the bundled catalog (built once: the catalog never changes at run time). */
  onDemandPrices(): Record<string, number> {
    if (this.onDemand) return this.onDemand;
    const out: Record<string, number> = {};
    for (const c of this.deps.catalog) {
      const p = c.onDemandUsdPerHour[this.deps.region];
      if (typeof p === 'number') out[c.name] = p;
    }
    this.onDemand = out;
    return out;
  }

  /** Latest Linux/UNIX spot price per `${type}/${zone}` (DescribeSpotPriceHistory with StartTime = now). */
  async spotPrices(): Promise<Record<string, number>> {
    if (this.fresh(this.spot, SPOT_PRICES_TTL_MS)) return this.spot.value;
    try {
      const latest = new Map<string, { price: number; at: number }>();
      const pages = paginateDescribeSpotPriceHistory({ client: this.deps.ec2 }, { ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'], StartTime: new Date(this.deps.now()) });
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
