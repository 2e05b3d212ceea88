import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, DescribeSpotPriceHistoryCommand, EC2Client } from '@aws-sdk/client-ec2';
import { beforeEach, describe, expect, it } from 'vitest';
import { InstanceTypeSource, typePartitions } from '../../../shared/adapters/aws/ec2/instance-type-source';
import { loadCatalog } from '../../../shared/catalog';
import { ec2, T0 } from './fixtures';

const catalog = loadCatalog();
const names = catalog.map((e) => e.name);
const info = (name: string) => ({
  InstanceType: name,
  VCpuInfo: { DefaultVCpus: 2 },
  MemoryInfo: { SizeInMiB: 4096 },
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
});
const matches = (name: string, patterns: string[]) => patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));

function source() {
  return new InstanceTypeSource({ ec2: new EC2Client({ region: 'us-east-1' }), region: 'us-east-1', now: () => T0, catalog });
}

describe('instance types read by a cold sandbox', () => {
  beforeEach(() => {
    ec2.reset();
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({ SpotPriceHistory: [] });
  });

  it('should list the region in requests of about one page each that together cover every name, a family the catalog does not know included', async () => {
    // Prepare: EC2 knows every bundled type and a family new to it
    const region = [...names, 'q9z.large', 'u-99tb1.metal'];
    ec2.on(DescribeInstanceTypesCommand).callsFake((input: { Filters?: { Name: string; Values: string[] }[] }) => {
      const patterns = input.Filters?.find((f) => f.Name === 'instance-type')?.Values ?? [];
      return { InstanceTypes: region.filter((n) => matches(n, patterns)).map(info) };
    });
    // Act
    const entries = await source().entries();
    // Assess
    const requests = ec2.commandCalls(DescribeInstanceTypesCommand);
    expect(requests.length).toBeLessThanOrEqual(16);
    for (const p of typePartitions(names))
      expect(
        names.filter((n) =>
          matches(
            n,
            p.map((x) => `${x}*`),
          ),
        ).length,
      ).toBeLessThanOrEqual(100);
    expect(entries.map((e) => e.name).sort()).toEqual([...region].sort());
  });

  it("should read a launch's types by name: one request, nothing else listed", async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).callsFake((input: { InstanceTypes?: string[] }) => ({ InstanceTypes: (input.InstanceTypes ?? []).map(info) }));
    const s = source();
    // Act
    const entries = await s.entriesNamed(['m5.large', 'c6i.xlarge']);
    const again = await s.entriesNamed(['c6i.xlarge']);
    // Assess
    expect(entries.map((e) => e.name)).toEqual(['m5.large', 'c6i.xlarge']);
    expect(again.map((e) => e.name)).toEqual(['c6i.xlarge']);
    expect(ec2.commandCalls(DescribeInstanceTypesCommand).map((c) => c.args[0].input)).toEqual([{ InstanceTypes: ['m5.large', 'c6i.xlarge'] }]);
  });

  it("should fall back to the bundled catalog's entries when the read by name fails", async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'RequestLimitExceeded' }));
    // Act
    const entries = await source().entriesNamed(['m5.large']);
    // Assess
    expect(entries).toEqual([catalog.find((e) => e.name === 'm5.large')]);
  });
});
