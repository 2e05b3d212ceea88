/**
 * Offerings of one instance type (reference §3.2): one per (zone of the node class × on-demand|spot).
 * Available only when priced, offered in the zone, compatible with the node class and not ICE-cached.
 * An unpriced offering has price 0 and is never available.
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

export function unavailableKey(k: OfferingKey): string {
  return `${k.capacityType}:${k.instanceType}:${k.zone}`;
}

export function unavailableSet(keys: OfferingKey[] | undefined): Set<string> {
  return new Set((keys ?? []).map(unavailableKey));
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
  const out: Offering[] = [];
  for (const zone of ctx.zones) {
    const inZone = compatible && (!offered || offered.includes(zone));
    const zoneId = ctx.zoneIds.get(zone);
    const onDemand = quoted(ctx.onDemandPrices, e.name, zone) ?? catalogOnDemand;
    let spot = quoted(ctx.spotPrices, e.name, zone);
    let estimated = false;
    if (spot === undefined && onDemand !== undefined) {
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
    out.push(make(CapacityType.onDemand, onDemand, false), make(CapacityType.spot, spot, estimated));
  }
  return out;
}
