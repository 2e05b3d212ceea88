import { loadCatalog } from '../../../shared/catalog';
import { buildInstanceTypes, type BuildInstanceTypesOptions } from '../../../shared/core/instance-types/build';
import type { CatalogEntry, InstanceType } from '../../../shared/core/instance-types/types';
import type { EC2NodeClass } from '../../../shared/core/model/karpenter';

export const MiB = 2 ** 20;
export const GiB = 2 ** 30;
export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

export function nodeClass(overrides: Partial<EC2NodeClass> = {}): EC2NodeClass {
  return {
    name: 'default',
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    tags: {},
    blockDeviceMappings: [],
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    ...overrides,
  };
}

export function catalogEntry(name: string): CatalogEntry {
  const e = loadCatalog().find((x) => x.name === name);
  if (!e) throw new Error(`no catalog entry ${name}`);
  return e;
}

/** Builds one catalog type in us-east-1 across ZONES. */
export function build(name: string, opts: Partial<BuildInstanceTypesOptions> = {}): InstanceType {
  return buildInstanceTypes([catalogEntry(name)], { region: 'us-east-1', zones: ZONES, ...opts })[0];
}
