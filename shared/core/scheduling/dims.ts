/**
 * Resource vectors: within one solve every resource name gets an index, so fit checks are tight loops over
 * Float64Arrays instead of object key walks (the hot path of the scheduler).
 */
import type { ResourceList } from '../model/resources';

export class Dims {
  readonly names: string[];
  private readonly index = new Map<string, number>();
  /** One vector per distinct request (pods of a deployment share theirs); see request. */
  private readonly requests = new Map<string, { vec: Float64Array; nz: number[] }>();

  constructor(names: Iterable<string>) {
    this.names = [];
    for (const n of ['cpu', 'memory', 'pods', ...names]) {
      if (this.index.has(n)) continue;
      this.index.set(n, this.names.length);
      this.names.push(n);
    }
  }

  get size(): number {
    return this.names.length;
  }

  /** ResourceList → vector (names outside the dims are dropped: no pod asks for them). */
  vec(r: ResourceList): Float64Array {
    const v = new Float64Array(this.names.length);
    for (const k in r) {
      const i = this.index.get(k);
      if (i !== undefined) v[i] = r[k];
    }
    return v;
  }

  /** A pod's request vector and its non-zero indices, shared by every pod that requests the same: never to be written. */
  request(r: ResourceList): { vec: Float64Array; nz: number[] } {
    const vec = this.vec(r);
    const key = vec.join(',');
    let shared = this.requests.get(key);
    if (!shared) this.requests.set(key, (shared = { vec, nz: nonZero(vec) }));
    return shared;
  }

  list(v: Float64Array): ResourceList {
    const out: ResourceList = {};
    for (let i = 0; i < v.length; i++) if (v[i] !== 0) out[this.names[i]] = v[i];
    return out;
  }
}

/** Indices with a positive value. */
function nonZero(v: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) if (v[i] > 0) out.push(i);
  return out;
}

/** Every index of sorted `b` is in sorted `a`. */
function within(b: number[], a: number[]): boolean {
  let i = 0;
  for (let j = 0; j < b.length; j++) {
    while (i < a.length && a[i] < b[j]) i++;
    if (i === a.length || a[i] !== b[j]) return false;
  }
  return true;
}

/** Sorted union of two sorted index lists: `a` itself when `b` adds nothing (a claim's pods mostly ask for the same resources). */
export function unionIdx(a: number[], b: number[]): number[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  if (within(b, a)) return a;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++]);
    else {
      out.push(a[i]);
      i++;
      j++;
    }
  }
  return out;
}
