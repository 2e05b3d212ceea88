/**
 * The simulated AWS Price List API (GetProducts for AmazonEC2), answered from the bundled catalog as the real
 * API answers: JSON price-list documents, 100 per page with a NextToken, filtered by regionCode / tenancy /
 * productFamily. A region the catalog has no prices for is answered with the us-east-1 list prices times a
 * regional factor (the public m5.large ratio of that region to us-east-1; 1.1 where none is listed here) —
 * the simulator needs a plausible Price List, not the real one, and the planners must not see the fallback.
 */
import type { CatalogEntry } from '../../core/instance-types/types';

const REGION_FACTOR: Record<string, number> = {
  'us-east-2': 1,
  'us-west-2': 1,
  'us-west-1': 1.167,
  'eu-west-1': 1.115,
  'eu-central-1': 1.198,
  'eu-west-2': 1.156,
  'eu-north-1': 1.063,
  'ap-southeast-1': 1.25,
  'ap-northeast-1': 1.292,
  'ap-south-1': 1.052,
  'sa-east-1': 1.594,
  'ca-central-1': 1.115,
};

/** A region's prices against us-east-1's (1 there; 1.1 where none is listed here). */
export function regionFactor(region: string): number {
  return region === 'us-east-1' ? 1 : (REGION_FACTOR[region] ?? 1.1);
}

export function simulatedListPrice(e: CatalogEntry, region: string): number | undefined {
  const own = e.onDemandUsdPerHour[region];
  if (own !== undefined) return own;
  const base = e.onDemandUsdPerHour['us-east-1'];
  return base === undefined ? undefined : Math.round(base * regionFactor(region) * 1e5) / 1e5;
}

interface Filter {
  Field?: string;
  Value?: string;
}

export function simulatedGetProducts(
  catalog: readonly CatalogEntry[],
  input: { ServiceCode?: string; Filters?: Filter[]; NextToken?: string; MaxResults?: number },
): { PriceList: string[]; NextToken?: string; FormatVersion: string } {
  const f = new Map((input.Filters ?? []).map((x) => [x.Field ?? '', x.Value ?? '']));
  if (input.ServiceCode !== 'AmazonEC2') return { PriceList: [], FormatVersion: 'aws_v1' };
  const region = f.get('regionCode') ?? '';
  const metal = f.get('productFamily') === 'Compute Instance (bare metal)';
  const rows = catalog
    .filter((e) => e.bareMetal === metal && f.get('operatingSystem') === 'Linux')
    .map((e) => ({ e, price: simulatedListPrice(e, region) }))
    .filter((r): r is { e: CatalogEntry; price: number } => r.price !== undefined);
  const start = Number(input.NextToken ?? 0);
  const size = Math.min(100, input.MaxResults ?? 100);
  const page = rows.slice(start, start + size).map(({ e, price }) =>
    JSON.stringify({
      product: {
        productFamily: metal ? 'Compute Instance (bare metal)' : 'Compute Instance',
        attributes: {
          instanceType: e.name,
          regionCode: region,
          operatingSystem: 'Linux',
          tenancy: metal ? 'Dedicated' : 'Shared',
          preInstalledSw: 'NA',
          capacitystatus: 'Used',
        },
      },
      serviceCode: 'AmazonEC2',
      terms: {
        OnDemand: {
          [`${e.name}.JRTCKXETXF`]: { priceDimensions: { [`${e.name}.JRTCKXETXF.6YS6EN2CT7`]: { unit: 'Hrs', pricePerUnit: { USD: price.toFixed(10) } } } },
        },
      },
    }),
  );
  return { PriceList: page, FormatVersion: 'aws_v1', ...(start + size < rows.length ? { NextToken: String(start + size) } : {}) };
}
