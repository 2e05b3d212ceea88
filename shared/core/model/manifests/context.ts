/**
 * Shared plumbing for the manifest mappers: where an object came from (for error messages), small
 * readers for loosely-typed Kubernetes JSON, and timestamp conversion (strings or Date objects).
 */
import { ManifestValidationError } from '../../errors';
import { NormalizedLabels } from '../labels';
import { QuantityParseError, parseResource } from '../quantity';
import type { ResourceList } from '../resources';
import { epochMs, fromSeconds, type EpochMs } from '../../time';

export type Json = Record<string, unknown>;

/** Where an object came from; used in every ManifestValidationError. */
export interface ManifestContext {
  file?: string;
  /** 0-based index of the YAML document in the file. */
  documentIndex?: number;
}

/** Extra knowledge the pod mapper can use when the manifest set holds PriorityClass / RuntimeClass objects. */
export interface PodContext extends ManifestContext {
  /** PriorityClass name → value (built-in system classes are always known). */
  priorityClasses?: Record<string, number>;
  /** Value of the PriorityClass marked globalDefault, for pods without priorityClassName. */
  defaultPriority?: number;
  /** RuntimeClass name → overhead.podFixed, used when the pod has no spec.overhead. */
  runtimeClassOverhead?: Record<string, ResourceList>;
  /** Where the pod spec sits in the document ("spec.template.spec" for workloads); default "spec". */
  specPath?: string;
}

export const BuiltinPriorityClasses: Record<string, number> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

export function fail(ctx: ManifestContext | undefined, path: string, problem: string): never {
  throw new ManifestValidationError(ctx?.file ?? '<input>', ctx?.documentIndex ?? 0, path, problem);
}

/** Runs fn; a ManifestValidationError it throws is re-thrown with its path rewritten (e.g. into the user's original field). */
export function withPath<T>(fn: () => T, mapPath: (path: string) => string): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ManifestValidationError) throw new ManifestValidationError(e.file, e.documentIndex, mapPath(e.path), e.problem);
    throw e;
  }
}

/** Rewrites a field path by the first matching prefix ([from, to] pairs), keeping the rest of the path. */
export function remapPath(path: string, map: readonly (readonly [string, string])[]): string {
  for (const [from, to] of map) {
    if (path === from || path.startsWith(`${from}.`) || path.startsWith(`${from}[`)) return to + path.slice(from.length);
  }
  return path;
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** What obj() and arr() give for a missing or mistyped field: one frozen empty value (readers only; a pod reads dozens). */
const NO_OBJECT: Readonly<Json> = Object.freeze({});
const NO_ARRAY: readonly unknown[] = Object.freeze([]);

export function obj(v: unknown): Readonly<Json> {
  return isObject(v) ? v : NO_OBJECT;
}

export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : NO_ARRAY;
}

export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** A string map (labels, annotations, nodeSelector); non-string scalars are stringified. */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const o = obj(v);
  // for…in: a manifest's objects are plain (no inherited enumerable keys), and it builds no key array.
  for (const k in o) {
    const val = o[k];
    const s = str(val);
    if (s !== undefined) out[k] = s;
    else if (val === null) out[k] = '';
  }
  return out;
}

/** Beta / legacy label key → GA key (NormalizedLabels); other keys unchanged. */
export function normalizeKey(key: string): string {
  return Object.hasOwn(NormalizedLabels, key) ? NormalizedLabels[key] : key;
}

/** Renames beta keys in a label map; when both forms are present the GA value wins. */
export function normalizeLabelMap(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in m) {
    const n = normalizeKey(k);
    if (n === k || !(n in m)) out[n] = m[k];
  }
  return out;
}

/** Kubernetes time (RFC3339 string, Date, or a number of seconds) → an instant; undefined if absent or unparseable. */
export function toEpochMs(v: unknown): EpochMs | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : epochMs(v.getTime());
  if (typeof v === 'number') return Number.isFinite(v) ? fromSeconds(v) : undefined;
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : epochMs(ms);
  }
  return undefined;
}

/** Parses a ResourceList, reporting the exact field on a bad quantity. */
export function resources(v: unknown, ctx: ManifestContext | undefined, path: string): ResourceList {
  const out: ResourceList = {};
  const o = obj(v);
  for (const k in o) {
    const raw = o[k];
    if (typeof raw !== 'string' && typeof raw !== 'number') fail(ctx, `${path}.${k}`, `expected a quantity, got ${JSON.stringify(raw)}`);
    try {
      out[k] = parseResource(k, raw);
    } catch (e) {
      if (e instanceof QuantityParseError) fail(ctx, `${path}.${k}`, `invalid quantity ${JSON.stringify(raw)}`);
      throw e;
    }
  }
  return out;
}

/** Zod-style path array → "spec.template.spec.requirements[2].values". */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}
