/**
 * The columnar form of the bundled instance-type catalog (ec2-instance-types.json, version 3), and its exact
 * inverse. The generator (scripts/generate-catalog.ts) encodes the entries; loadCatalog() decodes them once.
 * The entries that come out are the ones that went in: same fields in the same order, same values, same entry
 * order. decodeCatalog is all a bundle needs; encodeCatalog is only imported by the generator and the tests, so
 * esbuild leaves it out of the Lambdas.
 *
 * The form (see also shared/catalog/PROVENANCE.md):
 *  - `fields`: the fields of an entry, in the order of its keys.
 *  - `columns`: the fields a row stores, in the order of its cells. A row is an array of cells, one row per entry.
 *  - `derived`: the other fields, computed from the stored ones by decodeCatalog's rules (e.g. `family` is the part
 *    of `name` before the `.`). `exceptions` holds, per type name, the value of each derived field whose rule
 *    does not give the type's value; those win over the rule.
 *  - `dicts[column]`: the cell is an index into this list of values (most frequent first).
 *  - `maps[column]`: for object-valued columns (the per-region price map): the cell is `[k, v1, v2, ...]`; the
 *    object's keys are `maps[column][k]`, in that order, and its values v1, v2, ...
 *  - `defaults[column]`: a row leaves off trailing cells whose value is the column's default; the decoder fills
 *    them in. Only columns with a default can be left off, and only at the end of a row.
 */
import type { CatalogEntry } from '../core/instance-types/types';

export const CATALOG_FORMAT_VERSION = 3;

type Value = string | number | boolean | null;
type Cell = Value | Value[];

/** ec2-instance-types.json as written by the generator. */
export interface EncodedCatalog {
  version: number;
  fields: string[];
  columns: string[];
  derived: string[];
  dicts: Record<string, Value[]>;
  maps: Record<string, string[][]>;
  defaults: Record<string, Value>;
  exceptions: Record<string, Record<string, Value>>;
  rows: Cell[][];
}

/** The fields of a bundled catalog entry, in the order of its keys (CatalogEntry's, less the ones set at run time). */
export const CATALOG_FIELDS = [
  'name',
  'family',
  'category',
  'generation',
  'size',
  'vcpu',
  'memoryMiB',
  'arch',
  'gpuCount',
  'gpuManufacturer',
  'gpuName',
  'gpuMemoryMiB',
  'hypervisor',
  'bareMetal',
  'maxENIs',
  'ipv4PerENI',
  'maxPodsEni',
  'localNvmeGB',
  'networkBandwidthMbps',
  'onDemandUsdPerHour',
  'acceleratorCount',
  'acceleratorName',
  'acceleratorManufacturer',
  'branchENIs',
  'networkCards',
  'specSource',
] as const;

type Stored = Record<string, unknown>;

/** Karpenter's instance-type name regex (category, optional `-NNtb`, generation); ../shared/data uses it too. */
const NAME_PARTS = /(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

/** The fields decodeCatalog derives (its rules are there), in CATALOG_FIELDS order. */
const DERIVED = ['family', 'category', 'generation', 'size', 'bareMetal', 'maxPodsEni'];

/** The encoder's choices; the decoder reads everything it needs from the file. */
const LAYOUT = {
  /** Always-present columns first, then the ones that usually hold their default (left off the row's end). */
  columns: [
    'name',
    'vcpu',
    'memoryMiB',
    'arch',
    'hypervisor',
    'maxENIs',
    'ipv4PerENI',
    'localNvmeGB',
    'networkBandwidthMbps',
    'onDemandUsdPerHour',
    'branchENIs',
    'networkCards',
    'gpuCount',
    'gpuMemoryMiB',
    'gpuManufacturer',
    'gpuName',
    'specSource',
    'acceleratorCount',
    'acceleratorName',
    'acceleratorManufacturer',
  ],
  dicts: ['memoryMiB', 'arch', 'hypervisor', 'networkBandwidthMbps', 'gpuManufacturer', 'gpuName', 'specSource', 'acceleratorName', 'acceleratorManufacturer'],
  maps: ['onDemandUsdPerHour'],
  defaults: [
    'networkCards',
    'gpuCount',
    'gpuMemoryMiB',
    'gpuManufacturer',
    'gpuName',
    'specSource',
    'acceleratorCount',
    'acceleratorName',
    'acceleratorManufacturer',
  ],
};

function isValue(v: unknown): v is Value {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** Distinct values, most frequent first (ties: first seen first). */
function byFrequency<T>(values: T[], key: (v: T) => string): T[] {
  const counts = new Map<string, { value: T; n: number }>();
  for (const v of values) {
    const k = key(v);
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { value: v, n: 1 });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n).map((c) => c.value);
}

/** The columnar form of `entries` (each with exactly CATALOG_FIELDS, in that order). Throws if it would not decode to them. */
export function encodeCatalog(entries: readonly CatalogEntry[]): EncodedCatalog {
  const records = entries as unknown as readonly Stored[];
  if (new Set(records.map((e) => e.name)).size !== records.length) throw new Error('catalog entries: duplicate names');
  for (const [i, e] of records.entries()) {
    const keys = Object.keys(e).join(',');
    if (keys !== CATALOG_FIELDS.join(',')) throw new Error(`catalog entry ${i} (${String(e.name)}): keys ${keys}, expected ${CATALOG_FIELDS.join(',')}`);
    for (const f of CATALOG_FIELDS) {
      const v = e[f];
      const ok = LAYOUT.maps.includes(f) ? typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isValue) : isValue(v);
      if (!ok) throw new Error(`catalog entry ${i} (${String(e.name)}): ${f} cannot be encoded: ${JSON.stringify(v)}`);
    }
  }
  const dicts: Record<string, Value[]> = {};
  for (const c of LAYOUT.dicts)
    dicts[c] = byFrequency(
      records.map((e) => e[c] as Value),
      (v) => JSON.stringify(v),
    );
  const maps: Record<string, string[][]> = {};
  for (const c of LAYOUT.maps)
    maps[c] = byFrequency(
      records.map((e) => Object.keys(e[c] as object)),
      (k) => JSON.stringify(k),
    );
  const defaults: Record<string, Value> = {};
  for (const c of LAYOUT.defaults)
    defaults[c] =
      byFrequency(
        records.map((e) => e[c] as Value),
        (v) => JSON.stringify(v),
      )[0] ?? null;

  const rows = records.map((e) => {
    const row: Cell[] = LAYOUT.columns.map((c) => {
      const v = e[c];
      if (LAYOUT.maps.includes(c)) {
        const k = JSON.stringify(Object.keys(v as object));
        return [maps[c].findIndex((m) => JSON.stringify(m) === k), ...Object.values(v as Record<string, Value>)];
      }
      if (LAYOUT.dicts.includes(c)) return dicts[c].indexOf(v as Value);
      return v as Value;
    });
    while (row.length > 0) {
      const c = LAYOUT.columns[row.length - 1];
      if (!LAYOUT.defaults.includes(c) || e[c] !== defaults[c]) break;
      row.pop();
    }
    return row;
  });

  const encoded: EncodedCatalog = {
    version: CATALOG_FORMAT_VERSION,
    fields: [...CATALOG_FIELDS],
    columns: LAYOUT.columns,
    derived: DERIVED,
    dicts,
    maps,
    defaults,
    exceptions: {},
    rows,
  };
  // Where a derivation rule does not give an entry's value, the value is an exception (by name).
  const derived = decodeCatalog(encoded) as unknown as Stored[];
  for (const [i, e] of records.entries()) {
    for (const f of DERIVED) {
      if (derived[i][f] !== e[f]) (encoded.exceptions[e.name as string] ??= {})[f] = e[f] as Value;
    }
  }
  // The round trip is the contract: check it here too, so a bad encoding never gets written.
  const back = decodeCatalog(JSON.parse(JSON.stringify(encoded)) as EncodedCatalog);
  for (const [i, e] of records.entries()) {
    if (JSON.stringify(back[i]) !== JSON.stringify(e)) throw new Error(`catalog entry ${i} (${String(e.name)}) does not survive encoding`);
  }
  if (back.length !== records.length) throw new Error('catalog encoding changed the number of entries');
  return encoded;
}

type Reader = (row: Cell[]) => unknown;

/** How to read one stored column from a row: its cell, through its dictionary or key list, or its default. */
function columnReader(c: EncodedCatalog, col: string): Reader {
  const i = c.columns.indexOf(col);
  if (i < 0) throw new Error(`catalog column ${col} is missing`);
  const dict = c.dicts[col];
  const keys = c.maps[col];
  const hasDefault = Object.hasOwn(c.defaults, col);
  const fallback = c.defaults[col];
  const missing = (row: Cell[]) => {
    if (!hasDefault) throw new Error(`catalog row ${JSON.stringify(row)}: no ${col} and no default for it`);
    return fallback;
  };
  if (keys) {
    return (row) => {
      if (i >= row.length) return missing(row);
      const cell = row[i] as Value[];
      const names = keys[cell[0] as number];
      const obj: Record<string, Value> = {};
      for (let j = 0; j < names.length; j++) obj[names[j]] = cell[j + 1];
      return obj;
    };
  }
  if (dict) return (row) => (i < row.length ? dict[row[i] as number] : missing(row));
  return (row) => (i < row.length ? row[i] : missing(row));
}

/**
 * The entries of a columnar catalog: new, unfrozen objects with their keys in CATALOG_FIELDS order. The stored
 * columns may come in any order; the derived fields are DERIVED, with these rules:
 *  - `family` and `size`: the parts of `name` before and after the first `.`;
 *  - `category` and `generation`: NAME_PARTS' first and third groups (generation as a number);
 *  - `bareMetal`: `size` contains `metal`;
 *  - `maxPodsEni`: `maxENIs * (ipv4PerENI - 1) + 2`, the VPC CNI's max-pods formula.
 * Where a rule does not give a type's value, the encoder wrote the value to `exceptions`, which wins.
 */
export function decodeCatalog(c: EncodedCatalog): CatalogEntry[] {
  if (c.version !== CATALOG_FORMAT_VERSION) throw new Error(`catalog format version ${c.version}, expected ${CATALOG_FORMAT_VERSION}`);
  if (c.fields.join(',') !== CATALOG_FIELDS.join(',')) throw new Error(`catalog fields ${c.fields.join(',')}, expected ${CATALOG_FIELDS.join(',')}`);
  if (c.derived.join(',') !== DERIVED.join(',')) throw new Error(`catalog derived fields ${c.derived.join(',')}, expected ${DERIVED.join(',')}`);
  const name = columnReader(c, 'name');
  const vcpu = columnReader(c, 'vcpu');
  const memoryMiB = columnReader(c, 'memoryMiB');
  const arch = columnReader(c, 'arch');
  const gpuCount = columnReader(c, 'gpuCount');
  const gpuManufacturer = columnReader(c, 'gpuManufacturer');
  const gpuName = columnReader(c, 'gpuName');
  const gpuMemoryMiB = columnReader(c, 'gpuMemoryMiB');
  const hypervisor = columnReader(c, 'hypervisor');
  const maxENIs = columnReader(c, 'maxENIs');
  const ipv4PerENI = columnReader(c, 'ipv4PerENI');
  const localNvmeGB = columnReader(c, 'localNvmeGB');
  const networkBandwidthMbps = columnReader(c, 'networkBandwidthMbps');
  const onDemandUsdPerHour = columnReader(c, 'onDemandUsdPerHour');
  const acceleratorCount = columnReader(c, 'acceleratorCount');
  const acceleratorName = columnReader(c, 'acceleratorName');
  const acceleratorManufacturer = columnReader(c, 'acceleratorManufacturer');
  const branchENIs = columnReader(c, 'branchENIs');
  const networkCards = columnReader(c, 'networkCards');
  const specSource = columnReader(c, 'specSource');
  const exceptions = new Map(Object.entries(c.exceptions));
  for (const [n, exc] of exceptions) {
    for (const f of Object.keys(exc)) if (!DERIVED.includes(f)) throw new Error(`catalog exception ${n}.${f}: not a derived field`);
  }
  const out = new Array<CatalogEntry>(c.rows.length);
  for (let r = 0; r < c.rows.length; r++) {
    const row = c.rows[r];
    const n = name(row) as string;
    const dot = n.indexOf('.');
    const size = n.slice(dot + 1);
    const parts = NAME_PARTS.exec(n);
    const enis = maxENIs(row) as number;
    const ips = ipv4PerENI(row) as number;
    // An object literal in CATALOG_FIELDS order: every entry gets the same shape, in one allocation.
    const entry = {
      name: n,
      family: n.slice(0, dot),
      category: parts?.[1],
      generation: parts ? Number(parts[3]) : undefined,
      size,
      vcpu: vcpu(row),
      memoryMiB: memoryMiB(row),
      arch: arch(row),
      gpuCount: gpuCount(row),
      gpuManufacturer: gpuManufacturer(row),
      gpuName: gpuName(row),
      gpuMemoryMiB: gpuMemoryMiB(row),
      hypervisor: hypervisor(row),
      bareMetal: size.includes('metal'),
      maxENIs: enis,
      ipv4PerENI: ips,
      maxPodsEni: enis * (ips - 1) + 2,
      localNvmeGB: localNvmeGB(row),
      networkBandwidthMbps: networkBandwidthMbps(row),
      onDemandUsdPerHour: onDemandUsdPerHour(row),
      acceleratorCount: acceleratorCount(row),
      acceleratorName: acceleratorName(row),
      acceleratorManufacturer: acceleratorManufacturer(row),
      branchENIs: branchENIs(row),
      networkCards: networkCards(row),
      specSource: specSource(row),
    };
    const exc = exceptions.get(n);
    if (exc) Object.assign(entry, exc); // derived fields only (checked above), which the entry has: the key order stays
    out[r] = entry as unknown as CatalogEntry;
  }
  return out;
}
