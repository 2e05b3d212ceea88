/**
 * Patterns for the re-packing LP (repack.ts): pod kinds, instance-type variants, the greedy knapsack fill and
 * Farley's lower bound.
 */
import type { Pod } from '../../model/kube';
import type { Requirements } from '../requirements';
import type { TypeOption } from '../template';

/**
 * Pods with the same requests and requirements; `reqs` = the pool's requirements ∩ theirs; `cap` = how many of
 * them one node may hold (1 for hostname spread / anti-affinity, groups.ts); `zone` = the zone they must stay in.
 */
export interface Kind {
  vec: Float64Array;
  pods: Pod[];
  reqs: Requirements;
  cap: number;
  zone: string | null;
}
export interface Pattern {
  type: number;
  counts: number[];
  cost: number;
}
/**
 * An instance type launched as one capacity type in one zone (null: any zone, for pods free to go anywhere), at
 * its cheapest such offering; which kinds it may hold.
 */
export interface Variant {
  o: TypeOption;
  ct: string;
  zone: string | null;
  price: number;
  allowed: boolean[];
}

const EPS = 1e-9;

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

/**
 * The problem one group poses: its kinds and how many pods of each, the variants that may hold them, and the kinds
 * largest first (by the sum of their request vector) for first-fit-decreasing fills.
 */
export interface PackProblem {
  kinds: Kind[];
  n: number[];
  types: Variant[];
  bySize: number[];
}

/** Kind indices, largest request vector first. */
export function largestFirst(kinds: Kind[]): number[] {
  const total = kinds.map((k) => k.vec.reduce((s, v) => s + v, 0));
  return kinds.map((_, k) => k).sort((a, b) => total[b] - total[a]);
}

/**
 * The kinds worth packing into `eff` (positive dual, room for one), most valuable per unit of their tightest
 * resource first: the order of the greedy pricing and of the branch and bound.
 */
export function densityOrder(pi: number[], kinds: Kind[], eff: Float64Array, limit: number[]): number[] {
  const size = (k: number) => {
    let s = 0;
    for (let d = 0; d < eff.length; d++) if (eff[d] > 0) s = Math.max(s, kinds[k].vec[d] / eff[d]);
    return s || 1e-9;
  };
  return kinds
    .map((_, k) => k)
    .filter((k) => pi[k] > 0 && limit[k] > 0)
    .sort((a, b) => pi[b] / size(b) - pi[a] / size(a));
}

/** How many pods of each kind one node of variant `t` may take, out of `left`: none it may not hold, at most `cap`. */
export function limitOf(pr: PackProblem, t: Variant, left: number[]): number[] {
  return left.map((x, k) => (t.allowed[k] ? Math.min(x, pr.kinds[k].cap) : 0));
}

/** The patterns generated so far, without duplicates. */
export class PatternSet {
  readonly list: Pattern[] = [];
  private readonly seen = new Set<string>();
  add(p: Pattern): boolean {
    if (p.counts.every((c) => c === 0)) return false;
    const key = `${p.type}|${p.counts.join(',')}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.list.push(p);
    return true;
  }
}

/**
 * The most valuable pattern of one type (Σ π·a over counts a that fit `eff`, at most `limit[k]` of each kind):
 * a depth-first branch and bound over the kinds in order of value density, bounded by the single-resource
 * fractional knapsack of what is left. Exact when it finishes within `budget` nodes (`exact`); otherwise the
 * best pattern found so far. Fast for the handful of kinds a NodePool's pending pods form.
 */
export function bestPattern(
  pi: number[],
  kinds: Kind[],
  eff: Float64Array,
  limit: number[],
  budget = 20_000,
): { counts: number[]; value: number; exact: boolean } {
  const dims = eff.length;
  const order = densityOrder(pi, kinds, eff, limit);
  const counts = new Array<number>(kinds.length).fill(0);
  let best = { counts: [...counts], value: 0 };
  const left = Float64Array.from(eff);
  let nodes = 0;
  // An upper bound on what kinds order[i..] can add to `left`: the tightest single-resource fractional knapsack
  // (per resource, the kinds in order of value per unit of it, precomputed).
  const pos = new Array<number>(kinds.length).fill(-1);
  order.forEach((k, i) => {
    pos[k] = i;
  });
  const byDim = Array.from({ length: dims }, (_, d) => [...order].sort((x, y) => pi[y] / (kinds[y].vec[d] || EPS) - pi[x] / (kinds[x].vec[d] || EPS)));
  const bound = (i: number) => {
    let b = Infinity;
    for (let d = 0; d < dims; d++) {
      let cap = left[d] + EPS;
      let v = 0;
      for (const k of byDim[d]) {
        if (pos[k] < i) continue;
        const w = kinds[k].vec[d];
        if (w <= 0) {
          v += pi[k] * limit[k];
          continue;
        }
        if (cap <= 0) continue;
        const take = Math.min(limit[k], cap / w);
        v += take * pi[k];
        cap -= take * w;
      }
      if (v < b) b = v;
    }
    return b;
  };
  const dfs = (i: number, value: number): void => {
    if (++nodes > budget) return;
    if (value > best.value + 1e-12) best = { counts: [...counts], value };
    if (i >= order.length || value + bound(i) <= best.value + 1e-12) return;
    const k = order[i];
    const v = kinds[k].vec;
    let max = limit[k];
    for (let d = 0; d < dims; d++) if (v[d] > 0) max = Math.min(max, Math.floor((left[d] + EPS) / v[d]));
    for (let c = max; c >= 0; c--) {
      counts[k] = c;
      for (let d = 0; d < dims; d++) left[d] -= c * v[d];
      dfs(i + 1, value + c * pi[k]);
      for (let d = 0; d < dims; d++) left[d] += c * v[d];
      counts[k] = 0;
      if (nodes > budget) return;
    }
  };
  dfs(0, 0);
  return { ...best, exact: nodes <= budget };
}
