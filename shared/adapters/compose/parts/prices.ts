/** The Price List API → state store refresh (garbage collection runs it). */
import { PricingClient } from '@aws-sdk/client-pricing';
import { awsClientConfig } from '../../aws/client-config';
import { priceListEndpointRegion } from '../../aws/pricing/price-list';
import { PriceListRefresher } from '../../aws/pricing/refresher';
import { part } from '../base';
import { store } from './store';

export const prices = part(
  'prices',
  async (b) =>
    new PriceListRefresher({
      pricing: new PricingClient(awsClientConfig(priceListEndpointRegion(b.config.region))),
      region: b.config.region,
      store: await store(b),
      now: () => b.clock.now(),
    }),
);
