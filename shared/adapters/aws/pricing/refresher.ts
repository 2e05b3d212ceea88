/**
 * Keeps the region's on-demand list prices in the state store fresh: garbage collection (every 2 min) asks,
 * and the Price List API is read only when the stored prices are missing or older than 12 hours (Karpenter
 * refreshes on-demand prices every 12 h too). A failed read keeps the stored prices; with none, the planners
 * use the bundled catalog's prices (us-east-1 list prices, marked as estimates, for other regions).
 */
import type { PricingClient } from '@aws-sdk/client-pricing';
import type { StateStore } from '../../../core/ports/state-store';
import { fetchOnDemandPrices } from './price-list';
import type { EpochMs } from '../../../core/time';

const PRICES_MAX_AGE_MS = 12 * 3600_000;

export interface PriceRefreshResult {
  refreshed: boolean;
  /** Instance types priced after the refresh (or in the stored prices when not refreshed). */
  types: number;
  fetchedAt?: number;
}

export class PriceListRefresher {
  constructor(
    private readonly deps: {
      pricing: PricingClient;
      region: string;
      store: Pick<StateStore, 'onDemandPrices' | 'putOnDemandPrices'>;
      now: () => EpochMs;
      maxAgeMs?: number;
    },
  ) {}

  /** Refreshes when stale; throws PriceListUnavailableError when the API cannot be read (the stored prices stay). */
  async refreshIfStale(): Promise<PriceRefreshResult> {
    const stored = await this.deps.store.onDemandPrices?.(this.deps.region);
    const now = this.deps.now();
    if (stored && now - stored.fetchedAt < (this.deps.maxAgeMs ?? PRICES_MAX_AGE_MS)) {
      return { refreshed: false, types: Object.keys(stored.prices).length, fetchedAt: stored.fetchedAt };
    }
    const prices = await fetchOnDemandPrices(this.deps.pricing, this.deps.region);
    await this.deps.store.putOnDemandPrices?.(this.deps.region, { prices, fetchedAt: now });
    return { refreshed: true, types: Object.keys(prices).length, fetchedAt: now };
  }
}
