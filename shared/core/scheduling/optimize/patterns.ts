/**
 * Patterns for the re-packing LP (repack.ts): pod kinds, instance-type variants, the greedy knapsack fill and
 * Farley's lower bound.
 */
import type { Pod } from '../../model/kube';
import type { Requirements } from '../requirements';
import type { TypeOption } from '../template';

/** Pods with the same requests and requirements; `reqs` = the pool's requirements ∩ theirs. */
export interface Kind { vec: Float64Array; pods: Pod[]; reqs: Requirements }
export interface Pattern { type: number; counts: number[]; cost: number }
/** An instance type launched as one capacity type, at its cheapest offering of that type; which kinds it may hold. */
export interface Variant { o: TypeOption; ct: string; price: number; allowed: boolean[] }

export const EPS = 1e-9;

export function fits(counts: number[], kinds: Kind[], eff: Float64Array): boolean {
  for (let d = 0; d < eff.length; d++) {
    let sum = 0;
    for (let k = 0; k < kinds.length; k++) sum += counts[k] * kinds[k].vec[d];
    if (sum > eff[d] + EPS) return false;
  }
  return true;
}

/** Greedy knapsack: fill `eff` with kinds in the given order, at most `limit[k]` of each. */
export function fill(order: number[], kinds: Kind[], eff: Float64Array, limit: number[]): number[] {
  const counts = new Array<number>(kinds.length).fill(0);
  const left = Float64Array.from(eff);
  for (const k of order) {
    const v = kinds[k].vec;
    let n = limit[k];
    for (let d = 0; d < left.length; d++) if (v[d] > 0) n = Math.min(n, Math.floor((left[d] + EPS) / v[d]));
    if (n <= 0) continue;
    counts[k] = n;
    for (let d = 0; d < left.length; d++) left[d] -= n * v[d];
  }
  return counts;
}

/** An upper bound on Σ π·a over the patterns a type can hold: the smallest single-resource fractional knapsack. */
export function knapsackBound(pi: number[], n: number[], kinds: Kind[], eff: Float64Array, allowed: boolean[]): number {
  let best = Infinity;
  for (let d = 0; d < eff.length; d++) {
    const items = kinds.map((k, i) => ({ i, w: k.vec[d] })).filter((x) => pi[x.i] > 0 && allowed[x.i]);
    let cap = eff[d];
    let value = 0;
    const free = items.filter((x) => x.w <= 0);
    for (const x of free) value += pi[x.i] * n[x.i];
    const rest = items.filter((x) => x.w > 0).sort((a, b) => pi[b.i] / b.w - pi[a.i] / a.w);
    for (const x of rest) {
      if (cap <= 0) break;
      const take = Math.min(n[x.i], cap / x.w);
      value += take * pi[x.i];
      cap -= take * x.w;
    }
    best = Math.min(best, value);
  }
  return best;
}

/** Farley's lower bound on the LP from a dual vector (see repackGroup). */
export function farleyBound(pi: number[], n: number[], kinds: Kind[], types: Variant[]): number {
  let theta = 1;
  for (const t of types) if (t.price > 0) theta = Math.max(theta, knapsackBound(pi, n, kinds, t.o.eff, t.allowed) / t.price);
  return pi.reduce((s, p, k) => s + p * n[k], 0) / theta;
}
