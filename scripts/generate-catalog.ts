/**
 * Regenerates the bundled EC2 instance-type catalog (shared/catalog/) from the offline data set beside the
 * repository (../shared/data/ec2-instance-types.json). Run with `npm run catalog`.
 *
 * The product never reads ../shared at run time: this script copies the data into the repository, keeps only
 * the fields nodewright uses (CatalogEntry + specSource), validates every entry, and writes PROVENANCE.md with
 * the sources table, the sha256 of the input and the command that regenerates it. The output is deterministic
 * (no timestamps), so re-running it on the same input changes nothing.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = resolve(repoRoot, '../shared/data/ec2-instance-types.json');
const SOURCE_README = resolve(repoRoot, '../shared/data/README.md');
const SOURCE_LABEL = '../shared/data/ec2-instance-types.json';
const OUT_DIR = join(repoRoot, 'shared/catalog');
const COMMAND = 'npm run catalog   # node --import tsx scripts/generate-catalog.ts';

const nullableString = z.string().nullable();
const nullableNumber = z.number().nullable();

/** The source row, with the fields the catalog keeps (extra source fields are ignored). */
const SourceEntry = z.object({
  name: z.string().regex(/^[a-z0-9-]+\.[a-z0-9-]+$/),
  family: z.string().min(1),
  category: z.string().min(1),
  generation: z.number().int().nonnegative(),
  size: z.string().min(1),
  vcpu: z.number().int().positive(),
  memoryMiB: z.number().int().positive(),
  arch: z.enum(['amd64', 'arm64']),
  gpuCount: z.number().int().nonnegative(),
  gpuManufacturer: nullableString,
  gpuName: nullableString,
  gpuMemoryMiB: nullableNumber,
  hypervisor: nullableString,
  bareMetal: z.boolean(),
  maxENIs: z.number().int().nonnegative(),
  ipv4PerENI: z.number().int().nonnegative(),
  maxPodsEni: z.number().int().nonnegative(),
  localNvmeGB: nullableNumber,
  networkBandwidthMbps: nullableNumber,
  onDemandUsdPerHour: z.record(z.string(), z.number().positive()),
  acceleratorCount: nullableNumber,
  acceleratorName: nullableString,
  acceleratorManufacturer: nullableString,
  branchENIs: z.number().int().nonnegative().nullable().optional(),
  specSource: z.string().min(1),
});
type SourceEntry = z.infer<typeof SourceEntry>;

/** Field order of the output (CatalogEntry's order, then the optional extras). */
const FIELDS = [
  'name', 'family', 'category', 'generation', 'size', 'vcpu', 'memoryMiB', 'arch', 'gpuCount', 'gpuManufacturer',
  'gpuName', 'gpuMemoryMiB', 'hypervisor', 'bareMetal', 'maxENIs', 'ipv4PerENI', 'maxPodsEni', 'localNvmeGB',
  'networkBandwidthMbps', 'onDemandUsdPerHour', 'acceleratorCount', 'acceleratorName', 'acceleratorManufacturer',
  'branchENIs', 'specSource',
] as const;

function toCatalogRow(e: SourceEntry): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const f of FIELDS) {
    if (f === 'branchENIs') row[f] = e.branchENIs ?? 0;
    else if (f === 'onDemandUsdPerHour') row[f] = Object.fromEntries(Object.entries(e.onDemandUsdPerHour).sort(([a], [b]) => a.localeCompare(b)));
    else row[f] = e[f];
  }
  return row;
}

function parseSource(text: string): SourceEntry[] {
  const raw: unknown = JSON.parse(text);
  if (!Array.isArray(raw)) throw new Error(`${SOURCE_LABEL}: expected a JSON array`);
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const r = SourceEntry.safeParse(item);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new Error(`${SOURCE_LABEL}: entry ${i} (${(item as { name?: string })?.name ?? '?'}): ${issue.path.join('.')}: ${issue.message}`);
    }
    if (seen.has(r.data.name)) throw new Error(`${SOURCE_LABEL}: entry ${i}: duplicate name ${r.data.name}`);
    seen.add(r.data.name);
    return r.data;
  });
}

/** The "## Sources" section of the data README (table and the note after it), copied verbatim. */
function sourcesSection(readme: string): string {
  const m = /## Sources\n([\s\S]*?)\n## /.exec(readme);
  if (!m) throw new Error(`${SOURCE_README}: no "## Sources" section`);
  return m[1].trim();
}

function fieldsSection(readme: string): string {
  const m = /## Fields of `ec2-instance-types\.json`\n([\s\S]*?)\n## /.exec(readme);
  if (!m) throw new Error(`${SOURCE_README}: no fields section`);
  return m[1].trim();
}

function provenance(entries: SourceEntry[], sha256: string, readme: string): string {
  const priced = entries.filter((e) => Object.keys(e.onDemandUsdPerHour).length > 0).length;
  const specSources = new Map<string, number>();
  for (const e of entries) specSources.set(e.specSource, (specSources.get(e.specSource) ?? 0) + 1);
  return `# Provenance of the bundled EC2 instance-type catalog

\`ec2-instance-types.json\` in this folder is **generated**; do not edit it by hand.

- Input: \`${SOURCE_LABEL}\` (relative to the repository root), sha256 \`${sha256}\`
- Regenerate: \`${COMMAND}\`
- Entries: ${entries.length} instance types (sorted by name, one JSON object per line), ${priced} with an on-demand price.
- Kept fields: the fields of \`CatalogEntry\` (shared/core/instance-types/types.ts) plus \`specSource\`;
  \`branchENIs\` is 0 where the source has none. The source's \`maxENIsAllCards\`, \`networkCards\` and
  \`trunkingCompatible\` are not kept. No value is changed, estimated or added by the generator.
- Spot prices are not part of the catalog: they come from DescribeSpotPriceHistory at run time or from
  nodewright's documented estimate (docs/instance-types.md).

\`specSource\` counts: ${[...specSources.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `\`${k}\` ${v}`).join(', ')}.

## Sources (copied from ../shared/data/README.md)

${sourcesSection(readme)}

## Where each field comes from (copied from ../shared/data/README.md)

${fieldsSection(readme)}
`;
}

function main(): void {
  const text = readFileSync(SOURCE, 'utf8');
  const sha256 = createHash('sha256').update(text).digest('hex');
  const entries = parseSource(text).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const body = `[\n${entries.map((e) => JSON.stringify(toCatalogRow(e))).join(',\n')}\n]\n`;
  writeFileSync(join(OUT_DIR, 'ec2-instance-types.json'), body);
  writeFileSync(join(OUT_DIR, 'PROVENANCE.md'), provenance(entries, sha256, readFileSync(SOURCE_README, 'utf8')));
  console.log(`wrote ${entries.length} instance types to shared/catalog/ec2-instance-types.json (source sha256 ${sha256})`);
}

main();
