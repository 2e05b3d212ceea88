/**
 * Kubernetes resource quantities, parsed once at the edge into plain numbers:
 * cpu → millicores, memory / storage → bytes, everything else → a count.
 */
export class QuantityParseError extends Error {
  override readonly name = 'QuantityParseError' as const;
  constructor(
    readonly input: unknown,
    message?: string,
  ) {
    super(message ?? `invalid quantity ${JSON.stringify(input)}`);
  }
}

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const QUANTITY_RE = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** Parses a quantity into its value in base units (e.g. "500m" → 0.5, "1Gi" → 1073741824). */
export function parseQuantityValue(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new QuantityParseError(input);
    return input;
  }
  const s = String(input).trim();
  const m = QUANTITY_RE.exec(s);
  if (!m) throw new QuantityParseError(input);
  const base = Number(m[1]);
  const value = m[3] !== undefined ? base * 10 ** Number(m[3]) : base * (BINARY[m[2] ?? ''] ?? DECIMAL[m[2] ?? '']);
  // "1e999" matches the syntax but is no number a plan can use.
  if (!Number.isFinite(value)) throw new QuantityParseError(input, `quantity ${JSON.stringify(input)} is out of range`);
  return value;
}

/** True when `input` parses as a quantity (finite). */
export function isQuantity(input: unknown): input is string | number {
  if (typeof input !== 'string' && typeof input !== 'number') return false;
  try {
    parseQuantityValue(input);
    return true;
  } catch (e) {
    if (e instanceof QuantityParseError) return false;
    throw e;
  }
}

/** CPU quantity → millicores (rounded up, as Kubernetes does for sub-milli values). */
function parseCpu(input: string | number): number {
  return Math.ceil(parseQuantityValue(input) * 1000 - 1e-9) + 0; // + 0: never -0 for a zero quantity
}

/** Byte quantity → bytes (rounded up). */
export function parseBytes(input: string | number): number {
  return Math.ceil(parseQuantityValue(input) - 1e-9) + 0;
}

/** Parsed quantity strings, in millicores and in whole units: the pods of a workload repeat a few ("500m", "1Gi"); bounded, errors not kept. */
const parsedCpu = new Map<string, number>();
const parsedWhole = new Map<string, number>();

function cachedParse(cache: Map<string, number>, input: string | number, parse: (input: string | number) => number): number {
  if (typeof input !== 'string') return parse(input);
  let v = cache.get(input);
  if (v === undefined) {
    v = parse(input);
    if (cache.size >= 4096) cache.clear();
    cache.set(input, v);
  }
  return v;
}

/** Parses a resource by name into its internal unit: cpu in millicores; bytes (memory, storage, hugepages) and counts alike, rounded up. */
export function parseResource(name: string, input: string | number): number {
  return name === 'cpu' ? cachedParse(parsedCpu, input, parseCpu) : cachedParse(parsedWhole, input, parseBytes);
}

function formatCpu(milli: number): string {
  if (milli % 1000 === 0) return String(milli / 1000);
  return `${Math.round(milli)}m`;
}

function formatBytes(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [suffix, mult] of [
    ['Ti', 2 ** 40],
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const) {
    if (bytes % mult === 0) return `${bytes / mult}${suffix}`;
  }
  if (bytes >= 2 ** 20) return `${Math.ceil(bytes / 2 ** 20)}Mi`;
  return String(bytes);
}

export function formatResource(name: string, value: number): string {
  if (name === 'cpu') return formatCpu(value);
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) return formatBytes(value);
  return String(value);
}
