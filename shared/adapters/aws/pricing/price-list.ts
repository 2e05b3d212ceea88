/**
 * On-demand list prices from the AWS Price List API (GetProducts, paged), queried as Karpenter's pricing
 * provider queries it: EC2, the region's code, Linux, no pre-installed software, capacity status Used, market
 * option OnDemand — once for shared-tenancy compute instances and once for bare-metal ones (which AWS lists
 * under Dedicated tenancy and the "Compute Instance (bare metal)" family). Prices are USD (CNY in China).
 *
 * The API has endpoints in a few regions only: ap-* regions ask ap-south-1, eu-* (and me-/af-/il-) regions
 * eu-central-1, China cn-northwest-1, everything else us-east-1.
 */
import { paginateGetProducts, type Filter, type PricingClient } from '@aws-sdk/client-pricing';
import { errorText, mapAwsError } from '../errors';

export function priceListEndpointRegion(region: string): string {
  if (region.startsWith('ap-')) return 'ap-south-1';
  if (region.startsWith('cn-')) return 'cn-northwest-1';
  if (/^(eu|me|af|il)-/.test(region)) return 'eu-central-1';
  return 'us-east-1';
}

class PriceListUnavailableError extends Error {
  override readonly name = 'PriceListUnavailableError' as const;
}

const term = (Field: string, Value: string): Filter => ({ Type: 'TERM_MATCH', Field, Value });

interface PriceItem {
  product?: { attributes?: { instanceType?: string } };
  terms?: { OnDemand?: Record<string, { priceDimensions?: Record<string, { pricePerUnit?: Record<string, string> }> }> };
}

/** Prices of one GetProducts page: instance type → USD (CNY) per hour. Unparsable items are skipped. */
export function parsePriceList(priceList: readonly (string | object)[], currency: string): { prices: Record<string, number>; skipped: number } {
  const prices: Record<string, number> = {};
  let skipped = 0;
  for (const raw of priceList) {
    let item: PriceItem;
    try {
      item = (typeof raw === 'string' ? JSON.parse(raw) : raw) as PriceItem;
    } catch {
      skipped++;
      continue;
    }
    const type = item.product?.attributes?.instanceType;
    if (!type) {
      skipped++;
      continue;
    }
    for (const t of Object.values(item.terms?.OnDemand ?? {})) {
      for (const d of Object.values(t.priceDimensions ?? {})) {
        const price = Number.parseFloat(d.pricePerUnit?.[currency] ?? '');
        if (Number.isFinite(price) && price > 0) prices[type] = price;
      }
    }
  }
  return { prices, skipped };
}

async function query(client: PricingClient, region: string, extra: Filter[]): Promise<Record<string, number>> {
  const currency = region.startsWith('cn-') ? 'CNY' : 'USD';
  const out: Record<string, number> = {};
  const pages = paginateGetProducts(
    { client, pageSize: 100 },
    {
      ServiceCode: 'AmazonEC2',
      Filters: [
        term('regionCode', region),
        term('serviceCode', 'AmazonEC2'),
        term('preInstalledSw', 'NA'),
        term('operatingSystem', 'Linux'),
        term('capacitystatus', 'Used'),
        term('marketoption', 'OnDemand'),
        ...extra,
      ],
    },
  );
  for await (const page of pages) Object.assign(out, parsePriceList(page.PriceList ?? [], currency).prices);
  return out;
}

/**
 * The region's on-demand Linux prices. Throws PriceListUnavailableError (naming why) when the API cannot be
 * read or answers nothing for the region — the caller keeps its previous prices or the bundled fallback.
 */
export async function fetchOnDemandPrices(client: PricingClient, region: string): Promise<Record<string, number>> {
  try {
    const [shared, metal] = await Promise.all([
      query(client, region, [term('tenancy', 'Shared'), term('productFamily', 'Compute Instance')]),
      query(client, region, [term('tenancy', 'Dedicated'), term('productFamily', 'Compute Instance (bare metal)')]),
    ]);
    const prices = { ...shared, ...metal };
    if (Object.keys(shared).length === 0) throw new PriceListUnavailableError(`Price List API: no on-demand prices for ${region}`);
    return prices;
  } catch (e) {
    if (e instanceof PriceListUnavailableError) throw e;
    throw new PriceListUnavailableError(`Price List API GetProducts for ${region}: ${errorText(mapAwsError(e, 'GetProducts'))}`, { cause: e });
  }
}
