/** The simulated EC2's catalog APIs: instance types, their offerings per zone and spot prices (ec2-mock.ts installs them). */
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, DescribeSpotPriceHistoryCommand, type Filter } from '@aws-sdk/client-ec2';
import { ec2Architecture, instanceTypeInfo } from './catalog-info';
import { matchesFilters, page } from './filters';
import type { Ec2World } from './ec2-world';
import type { On } from './ec2-mock';

/**
 * The answers of one world's catalog APIs by request (without the paging), computed on the first page and reused:
 * every cold sandbox pages through all of them, and the catalog, the offerings and the spot prices never change
 * within a world (a spot row's Timestamp is the request's time, added per page).
 */
const catalogAnswers = new WeakMap<Ec2World, Map<string, readonly unknown[]>>();
function memo<T>(world: Ec2World, request: string, compute: () => T[]): readonly T[] {
  let answers = catalogAnswers.get(world);
  if (!answers) catalogAnswers.set(world, (answers = new Map()));
  let all = answers.get(request) as T[] | undefined;
  if (!all) answers.set(request, (all = compute()));
  return all;
}

/** Instance types, their offerings per zone and spot prices, from the world's catalog. */
export function installInstanceTypes(on: On, world: () => Ec2World): void {
  on(DescribeInstanceTypesCommand, (input: { Filters?: Filter[]; InstanceTypes?: string[]; NextToken?: string; MaxResults?: number }) => {
    const w = world();
    const all = memo(w, `types ${JSON.stringify([input.InstanceTypes, input.Filters])}`, () =>
      w.catalog().filter(
        (e) =>
          (!input.InstanceTypes || input.InstanceTypes.includes(e.name)) &&
          matchesFilters(
            input.Filters,
            {
              'instance-type': e.name,
              'processor-info.supported-architecture': ec2Architecture(e),
              'supported-virtualization-type': 'hvm',
              'current-generation': 'true',
            },
            {},
          ),
      ),
    );
    const p = page(all, input.NextToken, input.MaxResults, 100);
    return { InstanceTypes: p.items.map(instanceTypeInfo), ...(p.NextToken ? { NextToken: p.NextToken } : {}) };
  });
  on(DescribeInstanceTypeOfferingsCommand, (input: { NextToken?: string; MaxResults?: number; Filters?: Filter[] }) => {
    const w = world();
    const all = memo(w, `offerings ${JSON.stringify(input.Filters)}`, () =>
      w
        .catalog()
        .filter((e) => w.onDemandPrice(e.name) !== undefined)
        .flatMap((e) => w.subnets.map((s) => ({ InstanceType: e.name as never, LocationType: 'availability-zone' as const, Location: s.zone })))
        .filter((o) => matchesFilters(input.Filters, { 'instance-type': o.InstanceType, location: o.Location }, {})),
    );
    const p = page(all, input.NextToken, input.MaxResults, 1000);
    return { InstanceTypeOfferings: p.items.map((o) => ({ ...o })), ...(p.NextToken ? { NextToken: p.NextToken } : {}) };
  });
  on(DescribeSpotPriceHistoryCommand, (input: { NextToken?: string; MaxResults?: number; InstanceTypes?: string[] }) => {
    const w = world();
    const at = new Date(w.opts.clock.now());
    const all = memo(w, `spot ${JSON.stringify(input.InstanceTypes)}`, () =>
      w
        .catalog()
        .filter(
          (e) => (!input.InstanceTypes || input.InstanceTypes.includes(e.name)) && w.subnets.length > 0 && w.spotPrice(e.name, w.subnets[0].zone) !== undefined,
        )
        .flatMap((e) =>
          w.subnets.map((s) => ({
            InstanceType: e.name as never,
            AvailabilityZone: s.zone,
            ProductDescription: 'Linux/UNIX' as const,
            SpotPrice: String(w.spotPrice(e.name, s.zone)),
          })),
        ),
    );
    const p = page(all, input.NextToken, input.MaxResults, 1000);
    return { SpotPriceHistory: p.items.map((r) => ({ ...r, Timestamp: at })), ...(p.NextToken ? { NextToken: p.NextToken } : {}) };
  });
}
