/**
 * Instance types and prices from AWS for `plan` / `explain` on a running cluster, when the operator's credentials
 * allow (the default credential chain, as the AWS CLI): DescribeInstanceTypes, DescribeInstanceTypeOfferings and
 * DescribeSpotPriceHistory through the deployed provider's own reader (InstanceTypeSource), on-demand list prices
 * from the Price List API. Any of them failing leaves the bundled catalog's answer for it, and stderr says which.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { InstanceTypeSource } from '../shared/adapters/aws/ec2/instance-type-source';
import { fetchOnDemandPrices, priceListEndpointRegion } from '../shared/adapters/aws/pricing/price-list';
import { errorText } from '../shared/adapters/aws/errors';
import { loadCatalog } from '../shared/catalog';
import type { AwsPlanInputs } from '../shared/core/provisioning/offline-plan';

const firstLine = (e: unknown) => errorText(e).split('\n')[0];

/** What AWS answered for the region, or undefined (with a line on stderr) when it could not list the instance types. */
export async function awsPlanInputs(region: string, err: (s: string) => void): Promise<AwsPlanInputs | undefined> {
  const failures: string[] = [];
  const source = new InstanceTypeSource({
    ec2: new EC2Client({ region, maxAttempts: 2 }),
    region,
    now: () => Date.now(),
    catalog: loadCatalog(),
    onFallback: (what, e) => failures.push(`${what}: ${firstLine(e)}`),
  });
  const entries = await source.entries();
  if (failures.length) {
    err(`instance types and prices: the bundled catalog (AWS did not answer: ${failures[0]}); --offline skips asking`);
    return undefined;
  }
  const [zonesByType, spotPrices, onDemandPrices] = await Promise.all([
    source.zonesByType(),
    source.spotPrices(),
    fetchOnDemandPrices(new PricingClient({ region: priceListEndpointRegion(region), maxAttempts: 2 }), region).catch((e: unknown) => {
      failures.push(firstLine(e));
      return undefined;
    }),
  ]);
  const spot = Object.keys(spotPrices).length;
  err(
    `instance types and prices from AWS in ${region}: ${entries.length} instance types, ` +
      `${onDemandPrices ? `${Object.keys(onDemandPrices).length} on-demand prices (Price List API)` : 'on-demand prices from the bundled catalog'}, ` +
      `${spot ? `${spot} spot prices (DescribeSpotPriceHistory)` : "spot prices at nodewright's estimate"}` +
      (failures.length ? `; ${failures.join('; ')}` : ''),
  );
  return {
    entries,
    ...(onDemandPrices ? { onDemandPrices } : {}),
    ...(spot ? { spotPrices } : {}),
    ...(zonesByType ? { zonesByType } : {}),
  };
}
