/** The Price List adapter (GetProducts, paged, filtered like Karpenter's) and the 12-hour refresh into the state store. */
import { beforeEach, describe, expect, it } from 'vitest';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { fetchOnDemandPrices, parsePriceList, priceListEndpointRegion } from '../../../shared/adapters/aws/pricing/price-list';
import { PriceListRefresher } from '../../../shared/adapters/aws/pricing/refresher';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { epochMs } from '../../../shared/core/time';

const item = (type: string, usd: string, family = 'Compute Instance') =>
  JSON.stringify({
    product: { productFamily: family, attributes: { instanceType: type } },
    terms: { OnDemand: { [`${type}.T`]: { priceDimensions: { [`${type}.T.D`]: { unit: 'Hrs', pricePerUnit: { USD: usd } } } } } },
  });

const pricing = mockClient(PricingClient);
beforeEach(() => pricing.reset());
const client = () => new PricingClient({ region: 'eu-central-1' });
const filterOf = (call: number, field: string) =>
  (pricing.commandCalls(GetProductsCommand)[call].args[0].input.Filters ?? []).find((f) => f.Field === field)?.Value;

describe('Price List API on-demand prices', () => {
  it("should read every page of shared-tenancy and bare-metal prices with Karpenter's filters", async () => {
    // Prepare
    const shared = [
      { PriceList: [item('m5.large', '0.1070000000')], NextToken: 'p2' },
      { PriceList: [item('c5.large', '0.0960000000'), item('bogus', 'not-a-price')] },
    ];
    pricing.on(GetProductsCommand).callsFake(async (input: { Filters?: { Field?: string; Value?: string }[]; NextToken?: string }) => {
      const tenancy = input.Filters?.find((f) => f.Field === 'tenancy')?.Value;
      if (tenancy === 'Dedicated') return { PriceList: [item('m5.metal', '5.1400000000', 'Compute Instance (bare metal)')] };
      return input.NextToken === 'p2' ? shared[1] : shared[0];
    });
    // Act
    const prices = await fetchOnDemandPrices(client(), 'eu-west-1');
    // Assess
    expect(prices).toEqual({ 'm5.large': 0.107, 'c5.large': 0.096, 'm5.metal': 5.14 });
    expect(pricing.commandCalls(GetProductsCommand)).toHaveLength(3);
    for (const [field, value] of [
      ['regionCode', 'eu-west-1'],
      ['operatingSystem', 'Linux'],
      ['preInstalledSw', 'NA'],
      ['capacitystatus', 'Used'],
      ['marketoption', 'OnDemand'],
    ]) {
      expect(filterOf(0, field)).toBe(value);
    }
  });

  it("should ask the Price List endpoint of the region's geography", () => {
    expect(['eu-west-1', 'ap-southeast-2', 'us-west-2', 'me-south-1', 'cn-north-1'].map(priceListEndpointRegion)).toEqual([
      'eu-central-1',
      'ap-south-1',
      'us-east-1',
      'eu-central-1',
      'cn-northwest-1',
    ]);
  });

  it('should skip items it cannot parse instead of failing the page', () => {
    expect(parsePriceList(['{not json', item('m5.large', '0.096'), JSON.stringify({ product: {} })], 'USD')).toEqual({
      prices: { 'm5.large': 0.096 },
      skipped: 2,
    });
  });

  it('should report a failed or empty read as PriceListUnavailableError naming the region', async () => {
    // Prepare
    pricing
      .on(GetProductsCommand)
      .rejects(Object.assign(new Error('User is not authorized to perform: pricing:GetProducts'), { name: 'AccessDeniedException' }));
    // Act / Assess
    await expect(fetchOnDemandPrices(client(), 'eu-west-1')).rejects.toMatchObject({
      name: 'PriceListUnavailableError',
      message: expect.stringContaining('eu-west-1'),
    });
    pricing.reset();
    pricing.on(GetProductsCommand).resolves({ PriceList: [] });
    await expect(fetchOnDemandPrices(client(), 'eu-west-1')).rejects.toMatchObject({
      name: 'PriceListUnavailableError',
      message: expect.stringContaining('no on-demand prices for eu-west-1'),
    });
  });
});

describe('PriceListRefresher', () => {
  it('should read the API only when the stored prices are missing or older than 12 hours, and keep them when a read fails', async () => {
    // Prepare
    let now = Date.UTC(2026, 0, 1);
    const store = new MemoryStateStore({ now: () => epochMs(now) });
    pricing.on(GetProductsCommand).resolves({ PriceList: [item('m5.large', '0.107')] });
    const refresher = new PriceListRefresher({ pricing: client(), region: 'eu-west-1', store, now: () => epochMs(now) });
    // Act
    const first = await refresher.refreshIfStale();
    now += 11 * 3600_000;
    const second = await refresher.refreshIfStale();
    now += 2 * 3600_000;
    pricing.reset();
    pricing.on(GetProductsCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const third = refresher.refreshIfStale();
    // Assess
    expect(first).toMatchObject({ refreshed: true, types: 1 });
    expect(second).toMatchObject({ refreshed: false, types: 1 });
    await expect(third).rejects.toMatchObject({ name: 'PriceListUnavailableError' });
    expect((await store.onDemandPrices('eu-west-1'))?.prices).toEqual({ 'm5.large': 0.107 });
  });
});
