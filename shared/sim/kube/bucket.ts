/**
 * The stored objects of one resource type, by key (`<namespace>/<name>` or `<name>`), with the keys also kept in
 * sorted order: a LIST page (and a continue token) resumes by binary search and costs its page, not the
 * collection, and a namespace's keys are one contiguous run. A field a LIST selects on by equality (a pod's
 * `spec.nodeName`) is indexed from its first such LIST on: the keys by the field's value, kept with every write.
 */
import { fieldValue } from './selectors';
import type { KubeObject } from './types';

/** The API server's order: keys compared as plain strings. */
const before = (a: string, b: string): boolean => a < b;

export class Bucket {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keys: string[] = [];
  /** Field path (dotted) → the field's value (as a field selector reads it) → the keys of the objects with it. */
  private readonly byField = new Map<string, { path: string[]; keys: Map<string, Set<string>> }>();

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  has(key: string): boolean {
    return this.objects.has(key);
  }

  set(key: string, o: KubeObject): void {
    const old = this.objects.get(key);
    if (!old) this.keys.splice(this.lowerBound(key), 0, key);
    this.objects.set(key, o);
    for (const { path, keys } of this.byField.values()) {
      if (old) drop(keys, fieldValue(old, path), key);
      add(keys, fieldValue(o, path), key);
    }
  }

  delete(key: string): void {
    const old = this.objects.get(key);
    if (!old) return;
    this.objects.delete(key);
    for (const { path, keys } of this.byField.values()) drop(keys, fieldValue(old, path), key);
    const i = this.lowerBound(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /**
   * The index range [from, to) of the keys that start with `prefix` and sort after `after` ('' for no bound).
   * The keys of a prefix are contiguous: they sort before the prefix with its last character incremented.
   */
  span(prefix: string, after = ''): { from: number; to: number } {
    const to = prefix ? this.lowerBound(prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)) : this.keys.length;
    const from = after && after >= prefix ? this.upperBound(after) : this.lowerBound(prefix);
    return { from, to: Math.max(from, to) };
  }

  /** The key at a position of the sorted order and its stored object (read only: the store's own). */
  at(i: number): [string, KubeObject] {
    const k = this.keys[i];
    return [k, this.objects.get(k) as KubeObject];
  }

  /** The stored objects whose key starts with `prefix`, in key order (read only: the store's own objects). */
  values(prefix = ''): KubeObject[] {
    const { from, to } = this.span(prefix);
    const out: KubeObject[] = new Array(to - from);
    for (let i = from; i < to; i++) out[i - from] = this.objects.get(this.keys[i]) as KubeObject;
    return out;
  }

  /** The keys of the objects whose field (a dotted path) reads `value`, in key order: indexed from the first question on. */
  keysWithField(path: string[], value: string): string[] {
    return [...(this.fieldIndex(path).get(value) ?? [])].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }

  /** The values the field (a dotted path) reads among the objects ('' for those without it), in no order. */
  fieldValues(path: string[]): string[] {
    return [...this.fieldIndex(path).keys()];
  }

  private fieldIndex(path: string[]): Map<string, Set<string>> {
    const name = JSON.stringify(path);
    let index = this.byField.get(name);
    if (!index) {
      this.byField.set(name, (index = { path, keys: new Map() }));
      for (const [key, o] of this.objects) add(index.keys, fieldValue(o, path), key);
    }
    return index.keys;
  }

  /** The first index whose key is not before `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.keys[mid], key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first index whose key sorts after `key`. */
  private upperBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(key, this.keys[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function add(keys: Map<string, Set<string>>, value: string, key: string): void {
  const set = keys.get(value);
  if (set) set.add(key);
  else keys.set(value, new Set([key]));
}

function drop(keys: Map<string, Set<string>>, value: string, key: string): void {
  const set = keys.get(value);
  if (set?.delete(key) && set.size === 0) keys.delete(value);
}
