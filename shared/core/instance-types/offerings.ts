/**
 * Offerings of one instance type (docs/karpenter-reference.md §3.2): one per (zone of the node class × on-demand|spot).
 * Available only when priced, offered in the zone, compatible with the node class and not ICE-cached.
 *
 * On-demand prices: a quote (the Price List API, refreshed into the state store) wins, then the bundled
 * catalog's price for the region, then — so an offering is never unavailable for lack of a price — the bundled
 * us-east-1 list price, marked `priceEstimated` (as Karpenter falls back to its us-east-1 static prices).
 * Spot: only for types AWS sells as spot (DescribeInstanceTypes' SupportedUsageClasses when deployed; offline,
 * every type except the families AWS sells on-demand / dedicated only); a quote wins, else nodewright's estimate.
 */
import { CapacityType, type CapacityTypeValue } from '../model/labels';
import type { OfferingKey } from '../ports/state-store';
import { estimateSpotPrice } from './spot-estimate';
import type { CatalogEntry, Offering } from './types';

export interface OfferingContext {
  region: string;
  zones: string[];
  zoneIds: Map<string, string>;
  onDemandPrices?: Record<string, number>;
  spotPrices?: Record<string, number>;
  unavailable: Set<string>;
  zonesByType?: Record<string, string[]>;
}

function unavailableKey(k: OfferingKey): string {
  return `${k.capacityType}:${k.instanceType}:${k.zone}`;
}

export function unavailableSet(keys: OfferingKey[] | undefined): Set<string> {
  return new Set((keys ?? []).map(unavailableKey));
}

/** The region whose bundled list prices stand in for a region the catalog has no price for. */
export const FALLBACK_PRICE_REGION = 'us-east-1';

/**
 * Families AWS does not sell as spot: High Memory (u-*, u7i*, u7in*), HPC (hpc*) and Mac (dedicated hosts
 * only). Used when the type's SupportedUsageClasses are not known (the bundled catalog, offline plans).
 */
const NOT_SOLD_AS_SPOT = /^(u-|u7i|hpc|mac)/;

export function soldAsSpot(e: Pick<CatalogEntry, 'name' | 'spotSupported'>): boolean {
  return e.spotSupported ?? !NOT_SOLD_AS_SPOT.test(e.name);
}

function quoted(prices: Record<string, number> | undefined, type: string, zone: string): number | undefined {
  if (!prices) return undefined;
  const v = prices[`${type}/${zone}`] ?? prices[type];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Per-entry cache of spot estimates keyed by zone and on-demand price. */
export type SpotEstimateCache = Map<string, number>;

export function buildOfferings(e: CatalogEntry, ctx: OfferingContext, compatible: boolean, spotCache: SpotEstimateCache): Offering[] {
  // With a zone map, a type it does not list is offered nowhere; without one, everywhere.
  const offered = ctx.zonesByType ? (ctx.zonesByType[e.name] ?? []) : undefined;
  const catalogOnDemand = e.onDemandUsdPerHour[ctx.region];
  const fallbackOnDemand = catalogOnDemand === undefined ? e.onDemandUsdPerHour[FALLBACK_PRICE_REGION] : undefined;
  const spotSold = soldAsSpot(e);
  const out: Offering[] = [];
  for (const zone of ctx.zones) {
    const inZone = compatible && (!offered || offered.includes(zone));
    const zoneId = ctx.zoneIds.get(zone);
    const quote = quoted(ctx.onDemandPrices, e.name, zone);
    const onDemand = quote ?? catalogOnDemand ?? fallbackOnDemand;
    const onDemandEstimated = quote === undefined && catalogOnDemand === undefined && onDemand !== undefined;
    let spot = spotSold ? quoted(ctx.spotPrices, e.name, zone) : undefined;
    let estimated = false;
    if (spotSold && spot === undefined && onDemand !== undefined) {
      const key = `${zone}|${onDemand}`;
      spot = spotCache.get(key);
      if (spot === undefined) {
        spot = estimateSpotPrice(e.name, e.family, zone, onDemand);
        spotCache.set(key, spot);
      }
      estimated = true;
    }
    const make = (capacityType: CapacityTypeValue, price: number | undefined, priceEstimated: boolean): Offering => {
      const o: Offering = {
        zone,
        capacityType,
        price: price ?? 0,
        available: inZone && price !== undefined && !ctx.unavailable.has(`${capacityType}:${e.name}:${zone}`),
      };
      if (zoneId) o.zoneId = zoneId;
      if (priceEstimated) o.priceEstimated = true;
      return o;
    };
    out.push(make(CapacityType.onDemand, onDemand, onDemandEstimated), make(CapacityType.spot, spot, estimated));
  }
  return out;
}
