/**
 * A faster path for the YAML that tools write (`kubectl get -o yaml`, Helm output, the `yaml` library): block
 * mappings and sequences of one-line scalars, read line by line over the text without copying it. It gives
 * exactly what js-yaml's `loadAll` gives with the core schema plus merge keys — plain scalars are resolved by
 * that schema's own implicit types (null, bool, int, float) — and it reads only that subset: a document with
 * anything else (block or multi-line scalars, flow collections with content, comments after content, complex
 * keys, merge keys, YAML-only escapes, duplicate keys, empty sequence items, deep nesting) is handed to js-yaml
 * whole, and a stream with directives, `...` markers, content after `---`, carriage returns, tabs, a byte order
 * mark or non-printable characters is not split at all. Differential tests compare the two on every shipped
 * manifest, on border cases and on generated documents (test/core/model/block-yaml.test.ts).
 */
import jsyaml from 'js-yaml';

// js-yaml exports its types at run time; @types/js-yaml does not declare them.
const { merge: mergeKeys } = (jsyaml as unknown as { types: { merge: jsyaml.Type } }).types;
/** YAML 1.2 core schema plus merge keys, as the `yaml` library is used for manifests. */
export const MANIFEST_SCHEMA = jsyaml.CORE_SCHEMA.extend({ implicit: [mergeKeys] });
type ImplicitType = { resolve(data: string): boolean; construct(data: string): unknown };
const IMPLICIT = (MANIFEST_SCHEMA as unknown as { compiledImplicit: ImplicitType[] }).compiledImplicit;
/**
 * Only these first characters can make a core-schema null, bool, int or float (or a merge key): others are
 * strings. A letter (2) starts only `null` or a bool — four or five characters — so a longer word is a string.
 */
const MAY_RESOLVE = new Uint8Array(128);
for (const ch of '0123456789+-.~<') MAY_RESOLVE[ch.charCodeAt(0)] = 1;
for (const ch of 'nNtTfF') MAY_RESOLVE[ch.charCodeAt(0)] = 2;
/** A plain scalar may not start with a YAML 1.2 c-indicator (1), nor with "-", "?" or ":" before a space or the end (2). */
const NEVER_FIRST = new Uint8Array(128);
for (const ch of '[]{},#&*!|>%@`\'"') NEVER_FIRST[ch.charCodeAt(0)] = 1;
for (const ch of '-?:') NEVER_FIRST[ch.charCodeAt(0)] = 2;

/** Thrown inside the reader when a document leaves the subset; caught per document. */
const OUTSIDE = Symbol('outside the block subset');

const SPACE = 0x20;
const DASH = 0x2d;
const COLON = 0x3a;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** One document's content lines as offsets into the text: indentation, first and past-last content character. */
class Reader {
  i: number;
  /** Collections open around the current line (js-yaml limits nesting; deep documents are left to it). */
  depth = 0;
  constructor(
    readonly text: string,
    readonly indent: Int32Array,
    readonly start: Int32Array,
    readonly end: Int32Array,
    from: number,
    readonly to: number,
  ) {
    this.i = from;
  }

  isDash(at: number, end: number): boolean {
    return this.text.charCodeAt(at) === DASH && (at + 1 === end || this.text.charCodeAt(at + 1) === SPACE);
  }

  /** The node whose first line is the current one. */
  node(): unknown {
    const s = this.start[this.i];
    const e = this.end[this.i];
    if (this.isDash(s, e)) return this.sequence(this.indent[this.i]);
    if (this.entrySplit(s, e) >= 0) return this.mapping(this.indent[this.i], s);
    throw OUTSIDE; // a scalar on a line of its own (multi-line, or a root scalar)
  }

  /** A block sequence whose dashes stand at `indent`. */
  sequence(indent: number): unknown[] {
    if (++this.depth > MAX_DEPTH) throw OUTSIDE;
    const out: unknown[] = [];
    while (this.i < this.to) {
      const lineIndent = this.indent[this.i];
      if (lineIndent < indent) break;
      if (lineIndent > indent) throw OUTSIDE;
      const s = this.start[this.i];
      const e = this.end[this.i];
      if (!this.isDash(s, e)) break; // the next key of the mapping whose value this sequence is
      let rest = s + 1;
      while (rest < e && this.text.charCodeAt(rest) === SPACE) rest++;
      if (rest === e) {
        this.i++;
        // An empty item ("-" with nothing deeper): js-yaml reads what follows it its own way.
        if (this.i >= this.to || this.indent[this.i] <= indent) throw OUTSIDE;
        out.push(this.nested(indent, false));
      } else if (this.isDash(rest, e)) {
        throw OUTSIDE; // "- - a": a compact nested sequence
      } else if (this.entrySplit(rest, e) >= 0) {
        // "- key: value": a compact mapping whose keys stand at the column after the dash.
        out.push(this.mapping(indent + rest - s, rest));
      } else {
        this.i++;
        out.push(this.scalar(rest, e, false));
        this.noContinuation(indent);
      }
    }
    this.depth--;
    return out;
  }

  /** A block mapping whose keys stand at `indent`; the current line's entry starts at `at` (after a dash, if compact). */
  mapping(indent: number, at: number): Record<string, unknown> {
    if (++this.depth > MAX_DEPTH) throw OUTSIDE;
    const out: Record<string, unknown> = {};
    for (;;) {
      const e = this.end[this.i];
      const split = this.entrySplit(at, e);
      if (split < 0) throw OUTSIDE;
      const key = this.key(at, split);
      if (Object.hasOwn(out, key) || key === '__proto__') throw OUTSIDE; // js-yaml decides (a duplicate is an error)
      let rest = split + 1;
      while (rest < e && this.text.charCodeAt(rest) === SPACE) rest++;
      this.i++;
      if (rest === e) out[key] = this.nested(indent, true);
      else {
        out[key] = this.scalar(rest, e, false);
        this.noContinuation(indent);
      }
      if (this.i >= this.to || this.indent[this.i] < indent) {
        this.depth--;
        return out;
      }
      at = this.start[this.i];
      if (this.indent[this.i] > indent || this.isDash(at, this.end[this.i])) throw OUTSIDE;
    }
  }

  /** The value on the lines after "key:" or "-": deeper lines, or (for a key) a sequence at the key's own column. */
  nested(indent: number, sequenceAtSameIndent: boolean): unknown {
    if (this.i >= this.to) return null;
    const next = this.indent[this.i];
    if (next > indent) return this.node();
    if (sequenceAtSameIndent && next === indent && this.isDash(this.start[this.i], this.end[this.i])) return this.sequence(indent);
    return null;
  }

  /** A scalar's line must not be followed by a deeper line (that would continue it over several lines). */
  noContinuation(indent: number): void {
    if (this.i < this.to && this.indent[this.i] > indent) throw OUTSIDE;
  }

  /** Where "key: value" splits (the colon's offset), or -1 for a line that is not a mapping entry. */
  entrySplit(at: number, end: number): number {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE || c === SQUOTE) {
      const close = c === DQUOTE ? closingDoubleQuote(t, at, end) : closingSingleQuote(t, at, end);
      if (close < 0 || t.charCodeAt(close + 1) !== COLON) return -1;
      return close + 2 === end || t.charCodeAt(close + 2) === SPACE ? close + 1 : -1;
    }
    // Within this line only (indexOf would run on into the next lines when this one has none).
    for (let i = at; i < end - 1; i++) if (t.charCodeAt(i) === COLON && t.charCodeAt(i + 1) === SPACE) return i;
    return t.charCodeAt(end - 1) === COLON ? end - 1 : -1;
  }

  key(at: number, end: number): string {
    while (end > at && this.text.charCodeAt(end - 1) === SPACE) end--;
    if (end === at) throw OUTSIDE;
    return String(this.scalar(at, end, true));
  }

  scalar(at: number, end: number, isKey: boolean): unknown {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE) {
      if (closingDoubleQuote(t, at, end) !== end - 1) throw OUTSIDE;
      return doubleQuoted(t.slice(at, end));
    }
    if (c === SQUOTE) {
      if (closingSingleQuote(t, at, end) !== end - 1) throw OUTSIDE;
      const s = t.slice(at + 1, end - 1);
      return s.includes("''") ? s.replaceAll("''", "'") : s;
    }
    if (NEVER_FIRST[c] === 1 || (NEVER_FIRST[c] === 2 && (at + 1 === end || t.charCodeAt(at + 1) === SPACE))) {
      if (!isKey && end - at === 2 && ((c === 0x7b && t.charCodeAt(at + 1) === 0x7d) || (c === 0x5b && t.charCodeAt(at + 1) === 0x5d)))
        return c === 0x7b ? {} : [];
      throw OUTSIDE;
    }
    // A plain scalar on one line holds no " #" (a comment) and no ": " or final ":" (a mapping).
    for (let i = at + 1; i < end; i++) {
      const ch = t.charCodeAt(i);
      if ((ch === 0x23 && t.charCodeAt(i - 1) === SPACE) || (ch === COLON && (i + 1 === end || t.charCodeAt(i + 1) === SPACE))) throw OUTSIDE;
    }
    const s = t.slice(at, end);
    const may = c < 128 ? MAY_RESOLVE[c] : 0;
    if (may === 0 || (may === 2 && s.length > 5)) return s;
    if (s === '<<') throw OUTSIDE; // merge keys are js-yaml's
    for (const type of IMPLICIT) if (type.resolve(s)) return type.construct(s);
    return s;
  }
}

function closingDoubleQuote(t: string, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === DQUOTE) return i;
  }
  return -1;
}

function closingSingleQuote(t: string, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    if (t.charCodeAt(i) !== SQUOTE) continue;
    if (t.charCodeAt(i + 1) === SQUOTE) i++;
    else return i;
  }
  return -1;
}

/** JSON's escapes are YAML's too; a string with YAML-only escapes or raw control characters goes to js-yaml. */
function doubleQuoted(s: string): string {
  try {
    return JSON.parse(s) as string;
  } catch {
    throw OUTSIDE;
  }
}

/** The stream's content lines (blank lines and full-line comments dropped) and its bare `---` markers. */
interface Scan {
  indent: Int32Array;
  start: Int32Array;
  end: Int32Array;
  count: number;
  /** Per document: its first content line, and the text range it came from (for js-yaml). */
  docs: { from: number; to: number; textFrom: number; textTo: number; marker: boolean }[];
}

/** The stream's lines, or undefined when a line at column 0 is a directive, a `...` marker or content after `---` (UNSPLITTABLE). */
function scan(text: string): Scan | undefined {
  const lines = (text.length >> 4) + 16;
  const out: Scan = { indent: new Int32Array(lines), start: new Int32Array(lines), end: new Int32Array(lines), count: 0, docs: [] };
  let doc = { from: 0, to: 0, textFrom: 0, textTo: 0, marker: false };
  for (let pos = 0; pos < text.length;) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = text.length;
    let first = pos;
    while (text.charCodeAt(first) === SPACE) first++;
    let stop = eol;
    while (stop > first && text.charCodeAt(stop - 1) === SPACE) stop--;
    if (first === pos && lineStartUnsplittable(text, pos, stop)) return undefined;
    if (first === pos && stop === pos + 3 && text.startsWith('---', pos)) {
      doc.to = out.count;
      doc.textTo = pos;
      out.docs.push(doc);
      doc = { from: out.count, to: 0, textFrom: eol + 1, textTo: 0, marker: true };
    } else if (stop > first && text.charCodeAt(first) !== 0x23 /* # */) {
      if (out.count === out.indent.length) grow(out);
      out.indent[out.count] = first - pos;
      out.start[out.count] = first;
      out.end[out.count] = stop;
      out.count++;
    }
    pos = eol + 1;
  }
  doc.to = out.count;
  doc.textTo = text.length;
  out.docs.push(doc);
  return out;
}

/**
 * UNSPLITTABLE's line-start cases for a line starting at `pos` whose content ends at `stop` (trailing spaces
 * trimmed), in text whose only whitespace is spaces and newlines (the caller ran the full pattern on any other).
 */
function lineStartUnsplittable(text: string, pos: number, stop: number): boolean {
  const c = text.charCodeAt(pos);
  if (c === 0x25 /* % */) return true;
  if (c === 0x2e /* . */ && text.startsWith('...', pos))
    return pos + 3 === text.length || text.charCodeAt(pos + 3) === SPACE || text.charCodeAt(pos + 3) === 0x0a;
  return c === DASH && stop > pos + 3 && text.startsWith('---', pos);
}

function grow(s: Scan): void {
  for (const k of ['indent', 'start', 'end'] as const) {
    const bigger = new Int32Array(s[k].length * 2);
    bigger.set(s[k]);
    s[k] = bigger;
  }
}

/**
 * Streams js-yaml reads whole: directives, `...` markers, content after `---`, and characters the line reader
 * does not model — carriage returns, tabs, a byte order mark, and what js-yaml rejects as non-printable.
 */
export const UNSPLITTABLE = /^(%|\.\.\.(\s|$)|---[ \t]*[^ \t\n])|[\r\t\uFEFF]/m;
// js-yaml's PATTERN_NON_PRINTABLE (lib/loader.js).
export const NON_PRINTABLE =
  /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
/**
 * Newlines and printable ASCII only (what kubectl and most tools write): neither pattern above can match such text
 * but for UNSPLITTABLE's line-start cases, which scan() checks as it reads the lines (the two patterns cost more
 * than the rest of the read on a large file).
 */
const NOT_PLAIN = /[^\n\x20-\x7e]/;

/** The stream's lines, or undefined when js-yaml must read it whole. */
function lines(text: string): Scan | undefined {
  if (NOT_PLAIN.test(text) && (UNSPLITTABLE.test(text) || NON_PRINTABLE.test(text))) return undefined;
  return scan(text);
}

/** Nesting deeper than this is js-yaml's to read (it refuses more than 100 levels). */
const MAX_DEPTH = 64;

/** For tests: whether the stream goes to js-yaml whole (UNSPLITTABLE or NON_PRINTABLE matches it). */
export const readsWhole = (text: string): boolean => lines(text) === undefined;

/** Every document of a stream as js-yaml's `loadAll(text, undefined, { schema: MANIFEST_SCHEMA })` gives it; throws what js-yaml throws. */
export function loadAllManifestYaml(text: string): unknown[] {
  const values: unknown[] = [];
  eachManifestYaml(text, (value) => values.push(value));
  return values;
}

/**
 * The same documents handed to `fn` one by one as they are read (a caller that converts each at once keeps no
 * document tree alive); throws what js-yaml throws, after the documents before the bad one were handed over.
 */
export function eachManifestYaml(text: string, fn: (value: unknown) => void): void {
  const s = lines(text);
  // A stream without content is js-yaml's to answer too ([] when blank, [null] with a comment).
  if (s === undefined || s.count === 0) return void jsyaml.loadAll(text, fn, { schema: MANIFEST_SCHEMA });
  for (const d of s.docs) {
    // Before the first marker (or with none), only content makes a document; after a marker, an empty one is null.
    if (d.from === d.to) {
      if (d.marker) fn(null);
      continue;
    }
    let value: unknown;
    const reader = new Reader(text, s.indent, s.start, s.end, d.from, d.to);
    try {
      value = reader.node();
      if (reader.i !== d.to) value = OUTSIDE;
    } catch (e) {
      if (e !== OUTSIDE) throw e;
      value = OUTSIDE;
    }
    fn(value === OUTSIDE ? jsyaml.load(text.slice(d.textFrom, d.textTo), { schema: MANIFEST_SCHEMA }) : value);
  }
}
