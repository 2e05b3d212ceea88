/**
 * `JSON.stringify(value, null, 2)`, handed out in pieces. A 5k-pod plan is 4 MB of JSON: built as one string, then
 * copied into one buffer to be written, it costs two 4 MB allocations of fresh memory — which the kernel hands
 * out page by page, and which on a small VM costs more than serializing (docs/benchmarks.md). In pieces, each
 * short-lived string reuses memory the process already has.
 */

/** Pieces are cut at members of this depth (the top-level object is depth 0); deeper values are serialized whole. */
const DEFAULT_DEPTH = 2;

const pad = (level: number): string => '  '.repeat(level);

/** An array or plain object without toJSON: JSON.stringify walks its members (anything else is serialized whole). */
function walkable(v: unknown): v is Record<string, unknown> | unknown[] {
  if (typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return Array.isArray(v) || proto === Object.prototype || proto === null;
}

/** Whether JSON.stringify leaves an object member with this value out. */
const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * `v` serialized as JSON.stringify(…, null, 2) serializes it `level` containers deep: its first line unindented,
 * its later lines indented for that depth. The value is wrapped in `level` arrays and the wrapping is cut off.
 */
function textAt(v: unknown, level: number): string {
  let wrapped: unknown = v;
  for (let i = 0; i < level; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Wrapping array i (0 outermost) adds its line "  ".repeat(i) + "[\n" before the value, then the value's own
  // indent, 2 * level; after it, "\n" + "  ".repeat(i) + "]".
  return text.slice(level * (level + 3), text.length - level * (level + 1));
}

function* members(v: Record<string, unknown> | unknown[], level: number, depth: number): Generator<string> {
  const inner = pad(level + 1);
  let first = true;
  if (Array.isArray(v)) {
    if (v.length === 0) {
      yield '[]';
      return;
    }
    if (level + 1 >= depth) {
      yield* runs(v, level);
      return;
    }
    for (const item of v) {
      yield `${first ? '[' : ','}\n${inner}`;
      yield* valueText(omitted(item) ? null : item, level + 1, depth);
      first = false;
    }
    yield `\n${pad(level)}]`;
    return;
  }
  for (const key of Object.keys(v)) {
    const item = v[key];
    if (omitted(item)) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    yield* valueText(item, level + 1, depth);
    first = false;
  }
  yield first ? '{}' : `\n${pad(level)}}`;
}

/** Pieces are about this long (shorter strings stay in V8's young generation, whose memory is reused). */
const PIECE_TARGET = 32 * 1024;

/**
 * A non-empty array's text, its elements serialized whole a run at a time: JSON.stringify of a run is the array's
 * text with those elements only, and each run's elements are cut out of it. A run holds about PIECE_TARGET
 * characters, going by the runs so far.
 */
function* runs(v: unknown[], level: number): Generator<string> {
  const close = 2 * level + 2; // "\n" + the array's indent + "]"
  let size = 1;
  for (let at = 0; at < v.length;) {
    const text = textAt(v.slice(at, at + size), level);
    // "[" opens the first run; the others continue after a comma.
    yield at === 0 ? text.slice(0, text.length - close) : `,${text.slice(1, text.length - close)}`;
    at += size;
    size = Math.max(1, Math.min(4096, Math.round((size * PIECE_TARGET) / text.length)));
  }
  yield `\n${pad(level)}]`;
}

function* valueText(v: unknown, level: number, depth: number): Generator<string> {
  if (level < depth && walkable(v)) yield* members(v, level, depth);
  else yield textAt(v, level);
}

/** The pieces of `JSON.stringify(value, null, 2)` for a value that serializes to text (not undefined). */
export function jsonText(value: unknown, depth = DEFAULT_DEPTH): Iterable<string> {
  return valueText(value, 0, depth);
}
