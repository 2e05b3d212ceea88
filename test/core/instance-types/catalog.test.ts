import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../../../scripts/generate-catalog';
import { findCatalogEntry, loadCatalog } from '../../../shared/catalog';
import { CATALOG_FIELDS, CATALOG_FORMAT_VERSION, decodeCatalog, encodeCatalog, type EncodedCatalog } from '../../../shared/catalog/codec';
import committed from '../../../shared/catalog/ec2-instance-types.json' with { type: 'json' };
import type { CatalogEntry } from '../../../shared/core/instance-types/types';

const read = (rel: string) => readFileSync(new URL(rel, import.meta.url), 'utf8');
const readIfPresent = (rel: string) => {
  try {
    return read(rel);
  } catch {
    return undefined;
  }
};
const SOURCE = readIfPresent('../../../../shared/data/ec2-instance-types.json');
const SOURCE_README = readIfPresent('../../../../shared/data/README.md');
if (SOURCE === undefined || SOURCE_README === undefined) {
  console.warn('SKIPPED: the generator checks need ../shared/data/ec2-instance-types.json and README.md beside this checkout');
}

/** Entries of the version-1 file (one JSON object per entry, before the columnar form), copied verbatim. */
const VERSION_1_ENTRIES = [
  '{"name":"a1.metal","family":"a1","category":"a","generation":1,"size":"metal","vcpu":16,"memoryMiB":32768,"arch":"arm64","gpuCount":0,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":0,"hypervisor":"","bareMetal":true,"maxENIs":8,"ipv4PerENI":30,"maxPodsEni":234,"localNvmeGB":0,"networkBandwidthMbps":5000,"onDemandUsdPerHour":{"us-east-1":0.408},"acceleratorCount":0,"acceleratorName":null,"acceleratorManufacturer":null,"branchENIs":54,"specSource":"karpenter-docs@692ccdd0"}',
  '{"name":"cc2.8xlarge","family":"cc2","category":"cc","generation":2,"size":"8xlarge","vcpu":32,"memoryMiB":61952,"arch":"amd64","gpuCount":0,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":0,"hypervisor":null,"bareMetal":false,"maxENIs":8,"ipv4PerENI":30,"maxPodsEni":234,"localNvmeGB":null,"networkBandwidthMbps":null,"onDemandUsdPerHour":{},"acceleratorCount":null,"acceleratorName":null,"acceleratorManufacturer":null,"branchENIs":0,"specSource":"cluster-autoscaler@1bf5e878"}',
  '{"name":"g2.2xlarge","family":"g2","category":"g","generation":2,"size":"2xlarge","vcpu":8,"memoryMiB":15360,"arch":"amd64","gpuCount":1,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":null,"hypervisor":"xen","bareMetal":false,"maxENIs":4,"ipv4PerENI":15,"maxPodsEni":58,"localNvmeGB":null,"networkBandwidthMbps":null,"onDemandUsdPerHour":{"us-east-1":0.65},"acceleratorCount":null,"acceleratorName":null,"acceleratorManufacturer":null,"branchENIs":0,"specSource":"cluster-autoscaler@d5a8e200"}',
  '{"name":"inf2.48xlarge","family":"inf2","category":"inf","generation":2,"size":"48xlarge","vcpu":192,"memoryMiB":786432,"arch":"amd64","gpuCount":0,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":0,"hypervisor":"nitro","bareMetal":false,"maxENIs":15,"ipv4PerENI":50,"maxPodsEni":737,"localNvmeGB":0,"networkBandwidthMbps":100000,"onDemandUsdPerHour":{"us-east-1":12.98127},"acceleratorCount":12,"acceleratorName":"inferentia2","acceleratorManufacturer":"aws","branchENIs":107,"specSource":"karpenter-docs@692ccdd0"}',
  '{"name":"m5.xlarge","family":"m5","category":"m","generation":5,"size":"xlarge","vcpu":4,"memoryMiB":16384,"arch":"amd64","gpuCount":0,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":0,"hypervisor":"nitro","bareMetal":false,"maxENIs":4,"ipv4PerENI":15,"maxPodsEni":58,"localNvmeGB":0,"networkBandwidthMbps":1250,"onDemandUsdPerHour":{"us-east-1":0.192},"acceleratorCount":0,"acceleratorName":null,"acceleratorManufacturer":null,"branchENIs":18,"specSource":"karpenter-docs@692ccdd0"}',
  '{"name":"u-6tb1.56xlarge","family":"u-6tb1","category":"u","generation":1,"size":"56xlarge","vcpu":224,"memoryMiB":6291456,"arch":"amd64","gpuCount":0,"gpuManufacturer":null,"gpuName":null,"gpuMemoryMiB":0,"hypervisor":"nitro","bareMetal":false,"maxENIs":15,"ipv4PerENI":50,"maxPodsEni":737,"localNvmeGB":0,"networkBandwidthMbps":100000,"onDemandUsdPerHour":{"us-east-1":46.40391},"acceleratorCount":0,"acceleratorName":null,"acceleratorManufacturer":null,"branchENIs":0,"specSource":"karpenter-docs@692ccdd0"}',
];

/** An entry as the catalog file holds it: without the fields loadCatalog() adds (ebsAttachments). */
const fileFields = (e: CatalogEntry) => Object.fromEntries(CATALOG_FIELDS.map((f) => [f, e[f]])) as unknown as CatalogEntry;
/** Through JSON, as the generator writes it and the bundle imports it. */
const roundTrip = (entries: CatalogEntry[]) => decodeCatalog(JSON.parse(JSON.stringify(encodeCatalog(entries))) as EncodedCatalog);

const entry = (name: string, over: Partial<CatalogEntry> = {}): CatalogEntry => {
  const [family, size] = name.split('.');
  const m = /(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\./.exec(name);
  const base: CatalogEntry = {
    name,
    family,
    category: m?.[1] ?? 'x',
    generation: m ? Number(m[3]) : 0,
    size,
    vcpu: 2,
    memoryMiB: 4096,
    arch: 'amd64',
    gpuCount: 0,
    gpuManufacturer: null,
    gpuName: null,
    gpuMemoryMiB: 0,
    hypervisor: 'nitro',
    bareMetal: size.includes('metal'),
    maxENIs: 3,
    ipv4PerENI: 10,
    maxPodsEni: 29,
    localNvmeGB: 0,
    networkBandwidthMbps: 750,
    onDemandUsdPerHour: { 'us-east-1': 0.1 },
    acceleratorCount: 0,
    acceleratorName: null,
    acceleratorManufacturer: null,
    branchENIs: 0,
    networkCards: 1,
    specSource: 'karpenter-docs@692ccdd0',
  };
  return { ...base, ...over };
};

describe('bundled instance-type catalog', () => {
  it('should hold every type of the source data, sorted and unique', () => {
    // Prepare / Act
    const entries = loadCatalog();
    const names = entries.map((e) => e.name);

    // Assess
    expect(entries).toHaveLength(1385);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    expect(findCatalogEntry('m5.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, maxPodsEni: 58, specSource: 'karpenter-docs@692ccdd0' });
  });

  it('should give each caller its own array of shared, frozen entries', () => {
    // Prepare
    const a = loadCatalog();

    // Act
    a.length = 0;
    const b = loadCatalog();

    // Assess
    expect(b).toHaveLength(1385);
    expect(Object.isFrozen(b[0])).toBe(true);
    expect(Object.isFrozen(b[0].onDemandUsdPerHour)).toBe(true);
  });

  it('should decode entries with every field, in the field order of the file, plus the EBS limits', () => {
    // Prepare / Act
    const e = findCatalogEntry('p3.8xlarge') as CatalogEntry;

    // Assess
    expect(Object.keys(e)).toEqual([...CATALOG_FIELDS, 'ebsAttachments']);
    expect(e).toMatchObject({
      family: 'p3',
      category: 'p',
      generation: 3,
      size: '8xlarge',
      arch: 'amd64',
      gpuCount: 4,
      gpuManufacturer: 'nvidia',
      gpuName: 'v100',
      hypervisor: 'xen',
      bareMetal: false,
      specSource: 'karpenter-docs@9e1d72fd',
    });
    expect(e.maxPodsEni).toBe(e.maxENIs * (e.ipv4PerENI - 1) + 2);
  });

  it('should decode to the entries of the version-1 file, field for field and in the same key order, plus the network cards', () => {
    // Prepare
    const expected = VERSION_1_ENTRIES.map((l) => JSON.parse(l) as CatalogEntry);

    // Act: the version-1 fields (networkCards came with version 3)
    const decoded = expected.map((e) => fileFields(findCatalogEntry(e.name) as CatalogEntry));
    const v1Fields = decoded.map(({ networkCards: _cards, ...rest }) => rest);

    // Assess
    expect(v1Fields).toEqual(expected);
    expect(v1Fields.map((e) => JSON.stringify(e))).toEqual(VERSION_1_ENTRIES);
    expect(decoded.map((e) => e.networkCards)).toEqual([1, null, 1, 1, 1, 1]);
    expect(findCatalogEntry('p5.48xlarge')?.networkCards).toBe(32);
  });

  it('should be stored in the columnar form, whose decoding encodes back to the same file', () => {
    // Prepare
    const file = committed as unknown as EncodedCatalog;

    // Act
    const entries = decodeCatalog(file);

    // Assess
    expect(file.version).toBe(CATALOG_FORMAT_VERSION);
    expect(file.rows).toHaveLength(1385);
    expect(encodeCatalog(entries)).toEqual(file);
    expect(entries).toEqual(loadCatalog().map(fileFields));
  });

  it('should decode exactly what it encodes: values, field order and entry order', () => {
    // Prepare
    const entries = loadCatalog().map(fileFields);

    // Act
    const back = roundTrip(entries);

    // Assess
    expect(back).toEqual(entries);
    expect(JSON.stringify(back)).toBe(JSON.stringify(entries));
  });

  it('should keep values the derivation rules and the defaults do not give', () => {
    // Prepare: names the regex does not parse, a family/size that is not the name's, a max-pods value off the
    // formula, bare metal without "metal", rare and null values in the columns left off a row's end, price maps
    // with no region and several.
    const entries = [
      entry('a1.large', { maxPodsEni: 17, onDemandUsdPerHour: {} }),
      entry('b2.metal', { bareMetal: false, gpuCount: 8, gpuManufacturer: 'nvidia', gpuName: 'h100', gpuMemoryMiB: null }),
      entry('c3.xlarge', { family: 'c3x', size: 'xl', specSource: 'cluster-autoscaler@1bf5e878', arch: 'arm64' }),
      entry('u-6tb1.56xlarge', { category: 'u', generation: 1, acceleratorCount: null, acceleratorName: 'trainium', acceleratorManufacturer: 'aws' }),
      entry('weird.large', { category: 'weird', generation: 0, hypervisor: null, localNvmeGB: null, networkBandwidthMbps: null }),
      entry('z9.large', { onDemandUsdPerHour: { 'eu-west-1': 0.2, 'us-east-1': 0.1, 'ap-south-1': 0.3 } }),
    ];

    // Act
    const encoded = encodeCatalog(entries);
    const back = roundTrip(entries);

    // Assess
    expect(JSON.stringify(back)).toBe(JSON.stringify(entries));
    expect(encoded.exceptions).toEqual({
      'a1.large': { maxPodsEni: 17 },
      'b2.metal': { bareMetal: false },
      'c3.xlarge': { family: 'c3x', size: 'xl' },
      'weird.large': { category: 'weird', generation: 0 },
    });
    expect(encoded.rows.every((r) => r.length <= encoded.columns.length)).toBe(true);
  });

  it('should round-trip any entries (property)', () => {
    // Prepare
    const str = fc.constantFrom('a', 'nvidia', '', 'x-y', 'karpenter-docs@1');
    const num = fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.double({ min: 0, max: 1000, noNaN: true, noDefaultInfinity: true }));
    const entryArb = fc
      .record({
        name: fc.stringMatching(/^[a-z0-9-]{1,8}\.[a-z0-9-]{1,8}$/),
        family: fc.option(str, { nil: undefined }),
        category: fc.option(str, { nil: undefined }),
        generation: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
        size: fc.option(str, { nil: undefined }),
        vcpu: fc.integer({ min: 1, max: 512 }),
        memoryMiB: num,
        arch: fc.constantFrom('amd64' as const, 'arm64' as const),
        gpuCount: fc.integer({ min: 0, max: 16 }),
        gpuManufacturer: fc.option(str),
        gpuName: fc.option(str),
        gpuMemoryMiB: fc.option(num),
        hypervisor: fc.option(str),
        bareMetal: fc.option(fc.boolean(), { nil: undefined }),
        maxENIs: fc.integer({ min: 0, max: 100 }),
        ipv4PerENI: fc.integer({ min: 0, max: 100 }),
        maxPodsEni: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
        localNvmeGB: fc.option(num),
        networkBandwidthMbps: fc.option(num),
        onDemandUsdPerHour: fc.dictionary(fc.constantFrom('us-east-1', 'eu-west-1', 'ap-south-1'), num),
        acceleratorCount: fc.option(fc.integer({ min: 0, max: 16 })),
        acceleratorName: fc.option(str),
        acceleratorManufacturer: fc.option(str),
        branchENIs: fc.integer({ min: 0, max: 120 }),
        networkCards: fc.option(fc.integer({ min: 1, max: 32 })),
        specSource: str,
      })
      .map((r) => {
        // The derived fields: as the rules give them unless the generator drew a value.
        const base = entry(r.name);
        const e = { ...r } as Record<string, unknown>;
        for (const f of ['family', 'category', 'generation', 'size', 'bareMetal'] as const) e[f] ??= base[f];
        e.maxPodsEni ??= r.maxENIs * (r.ipv4PerENI - 1) + 2;
        return Object.fromEntries(CATALOG_FIELDS.map((f) => [f, e[f]])) as unknown as CatalogEntry;
      });
    const entriesArb = fc.uniqueArray(entryArb, { selector: (e) => e.name, maxLength: 30 });

    // Act / Assess
    fc.assert(
      fc.property(entriesArb, (entries) => {
        expect(JSON.stringify(roundTrip(entries))).toBe(JSON.stringify(entries));
      }),
      { numRuns: 100 },
    );
  });

  it('should refuse entries it cannot encode exactly', () => {
    // Prepare
    const extra = { ...entry('a1.large'), spotSupported: true } as CatalogEntry;
    const { name, ...rest } = entry('a1.large');
    const reordered = { ...rest, name } as CatalogEntry;

    // Act / Assess
    expect(() => encodeCatalog([extra])).toThrow(/keys/);
    expect(() => encodeCatalog([reordered])).toThrow(/keys/);
    expect(() => encodeCatalog([entry('a1.large', { vcpu: Number.NaN })])).toThrow(/vcpu cannot be encoded/);
    expect(() => encodeCatalog([entry('a1.large'), entry('a1.large')])).toThrow(/duplicate/);
    expect(() => decodeCatalog({ ...(committed as unknown as EncodedCatalog), version: 1 })).toThrow(/version 1/);
    expect(() => decodeCatalog({ ...(committed as unknown as EncodedCatalog), exceptions: { 'm5.large': { vcpu: 1 } } })).toThrow(/not a derived field/);
  });

  it('should record the sha256 of the source file it was generated from', () => {
    // Prepare
    const provenance = read('../../../shared/catalog/PROVENANCE.md');
    if (SOURCE === undefined) return; // the source data is not beside this checkout (warned above)

    // Act
    const sha = createHash('sha256').update(SOURCE).digest('hex');

    // Assess
    expect(provenance).toContain(sha);
    expect(provenance).toContain('npm run catalog');
  });

  it.skipIf(SOURCE === undefined || SOURCE_README === undefined)('should be what the generator makes of ../shared/data, decoding to its entries', () => {
    // Prepare / Act
    const { entries, json, provenance } = generateCatalog(SOURCE as string, SOURCE_README as string);

    // Assess
    expect(json).toBe(read('../../../shared/catalog/ec2-instance-types.json'));
    expect(provenance).toBe(read('../../../shared/catalog/PROVENANCE.md'));
    const loaded = loadCatalog().map(fileFields);
    expect(loaded).toEqual(entries);
    expect(JSON.stringify(loaded)).toBe(JSON.stringify(entries));
  });
});
