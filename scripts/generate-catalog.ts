/**
 * Regenerates the bundled EC2 instance-type catalog (shared/catalog/) from the offline data set beside the
 * repository (../shared/data/ec2-instance-types.json). Run with `npm run catalog`.
 *
 * The product never reads ../shared at run time: this script copies the data into the repository, keeps only
 * the fields nodewright uses (CatalogEntry + specSource), validates every entry, writes the entries in the
 * columnar form of shared/catalog/codec.ts (version 2; loadCatalog() decodes it), and writes PROVENANCE.md with
 * the sources table, the sha256 of the input and the command that regenerates it. The output is deterministic
 * (no timestamps), so re-running it on the same input changes nothing.
 *
 * `generateCatalog` is exported for the tests (test/core/instance-types/catalog.test.ts), which check that the
 * committed files are its output; only running the script writes them.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CATALOG_FIELDS, encodeCatalog, type EncodedCatalog } from '../shared/catalog/codec';
import type { CatalogEntry } from '../shared/core/instance-types/types';

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
  networkCards: z.number().int().positive().nullable(),
  specSource: z.string().min(1),
});
type SourceEntry = z.infer<typeof SourceEntry>;

/** An entry of the catalog: the fields of CATALOG_FIELDS, in that order, from one source row. */
function toCatalogEntry(e: SourceEntry): CatalogEntry {
  const row: Record<string, unknown> = {};
  for (const f of CATALOG_FIELDS) {
    if (f === 'branchENIs') row[f] = e.branchENIs ?? 0;
    else if (f === 'onDemandUsdPerHour') row[f] = Object.fromEntries(Object.entries(e.onDemandUsdPerHour).sort(([a], [b]) => a.localeCompare(b)));
    else row[f] = e[f];
  }
  return row as unknown as CatalogEntry;
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

function provenance(entries: SourceEntry[], encoded: EncodedCatalog, sha256: string, readme: string): string {
  const priced = entries.filter((e) => Object.keys(e.onDemandUsdPerHour).length > 0).length;
  const specSources = new Map<string, number>();
  for (const e of entries) specSources.set(e.specSource, (specSources.get(e.specSource) ?? 0) + 1);
  const code = (s: string) => `\`${s}\``;
  const exceptions = Object.entries(encoded.exceptions);
  return `# Provenance of the bundled EC2 instance-type catalog

\`ec2-instance-types.json\` in this folder is **generated**; do not edit it by hand.

- Input: \`${SOURCE_LABEL}\` (relative to the repository root), sha256 \`${sha256}\`
- Regenerate: \`${COMMAND}\`
- Entries: ${entries.length} instance types (sorted by name), ${priced} with an on-demand price.
- Kept fields: the fields of \`CatalogEntry\` (shared/core/instance-types/types.ts) plus \`specSource\`;
  \`branchENIs\` is 0 where the source has none. The source's \`maxENIsAllCards\` and
  \`trunkingCompatible\` are not kept. No value is changed, estimated or added by the generator.
- Spot prices are not part of the catalog: they come from DescribeSpotPriceHistory at run time or from
  nodewright's documented estimate (docs/instance-types.md).

\`specSource\` counts: ${[...specSources.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join(', ')}.

## The form of \`ec2-instance-types.json\` (version ${encoded.version})

The file is columnar, so that the key names are not repeated in every entry; \`loadCatalog()\`
(\`shared/catalog/index.ts\`) decodes it once, with \`decodeCatalog\` in \`shared/catalog/codec.ts\`, into the
same \`CatalogEntry\` objects as the entries the generator encoded (same fields in the same order, same values,
same order of entries; \`test/core/instance-types/catalog.test.ts\` checks the round trip and that this file is
the generator's output).

- \`version\`: ${encoded.version} (version 1 was an array of entry objects, one per line).
- \`fields\`: the fields of an entry, in key order: ${encoded.fields.map(code).join(', ')}.
- \`rows\`: one array per entry (one per line), in the order of \`columns\`: ${encoded.columns.map(code).join(', ')}.
- \`derived\`: fields not stored but computed from the row: \`family\` and \`size\` are the parts of \`name\` before
  and after the \`.\`; \`category\` and \`generation\` come from Karpenter's name regex; \`bareMetal\` is "\`size\`
  contains \`metal\`"; \`maxPodsEni\` is \`maxENIs * (ipv4PerENI - 1) + 2\`. Where a rule does not give a type's
  value, \`exceptions\` holds the value by type name: ${exceptions.length === 0 ? 'none in this version of the data' : exceptions.map(([n, v]) => `${code(n)} ${code(JSON.stringify(v))}`).join(', ')}.
- \`dicts\`: a cell is an index into the column's list of values (most frequent first), for
  ${Object.keys(encoded.dicts).map(code).join(', ')}.
- \`maps\`: an \`onDemandUsdPerHour\` cell is \`[k, price, ...]\`: the regions are \`maps.onDemandUsdPerHour[k]\`
  (${encoded.maps.onDemandUsdPerHour.map((k) => code(JSON.stringify(k))).join(', ')}), with the prices in that order.
- \`defaults\`: a row leaves off its trailing cells whose value is the column's default: ${Object.entries(encoded.defaults)
    .map(([k, v]) => `${code(k)} ${code(JSON.stringify(v))}`)
    .join(', ')}.

## Sources (copied from ../shared/data/README.md)

${sourcesSection(readme)}

## Where each field comes from (copied from ../shared/data/README.md)

${fieldsSection(readme)}
`;
}

/** The catalog's presentation: the header on the first line, then one row per line. */
function formatCatalog(encoded: EncodedCatalog): string {
  const { rows, ...header } = encoded;
  const head = JSON.stringify(header);
  return `${head.slice(0, -1)},"rows":[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]}\n`;
}

/** The catalog's entries, the file contents of ec2-instance-types.json and of PROVENANCE.md, from the source data. */
export function generateCatalog(sourceText: string, sourceReadme: string): { entries: CatalogEntry[]; json: string; provenance: string } {
  const sha256 = createHash('sha256').update(sourceText).digest('hex');
  const sorted = parseSource(sourceText).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries = sorted.map(toCatalogEntry);
  const encoded = encodeCatalog(entries);
  return { entries, json: formatCatalog(encoded), provenance: provenance(sorted, encoded, sha256, sourceReadme) };
}

function main(): void {
  const text = readFileSync(SOURCE, 'utf8');
  const { entries, json, provenance: md } = generateCatalog(text, readFileSync(SOURCE_README, 'utf8'));
  writeFileSync(join(OUT_DIR, 'ec2-instance-types.json'), json);
  writeFileSync(join(OUT_DIR, 'PROVENANCE.md'), md);
  const sha256 = createHash('sha256').update(text).digest('hex');
  console.log(`wrote ${entries.length} instance types to shared/catalog/ec2-instance-types.json (${json.length} bytes; source sha256 ${sha256})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
