/**
 * The re-packing LP for one group (repack.ts): a covering LP over patterns (a variant and how many pods of each
 * kind it holds), solved by column generation, then the same master as a MIP over the generated patterns.
 *
 * Pricing is exact where it can be: each variant's most valuable pattern against the kinds' duals comes from a
 * small branch and bound (bestPattern). The lower bound is Farley's: θ = the largest value/price ratio of any
 * variant's best pattern, and Σ n·π / θ never exceeds the cheapest fractional fleet. Where a branch and bound
 * runs out of budget, that variant's ratio uses the fractional knapsack bound instead, so the bound stays valid.
 */
import type { LinearProgram, LpSolver } from '../../ports/lp-solver';
import { bestPattern, densityOrder, fill, knapsackBound, limitOf, type PackProblem, type Pattern, type PatternSet, type Variant } from './patterns';

export interface ColumnGenerationOptions {
  maxRounds: number;
  lpSeconds: number;
  mipSeconds: number;
  /** Branch-and-bound nodes per variant and round for exact pricing. */
  pricingBudget: number;
}

export interface ColumnGenerationResult {
  chosen?: { p: Pattern; m: number }[];
  lb: number;
  why?: string;
}

/** A dive within this share of the LP over its patterns is kept without running the MIP. */
const GOOD_ENOUGH = 0.003;

/** Patterns added per round: the most negative reduced costs first. */
const PER_ROUND = 25;

export function columnGeneration(pr: PackProblem, patterns: PatternSet, lp: LpSolver, o: ColumnGenerationOptions): ColumnGenerationResult {
  const { kinds, n, types } = pr;
  const master = (integer: boolean, seconds: number) => {
    const list = patterns.list;
    const program: LinearProgram = {
      objective: list.map((p) => p.cost),
      rows: kinds.map((_, k) => ({ terms: list.map((p, j) => [j, p.counts[k]] as [number, number]).filter(([, c]) => c > 0), lo: n[k], hi: Infinity })),
      ...(integer ? { integer: list.map(() => true) } : {}),
    };
    return lp.solve(program, { timeLimitSeconds: seconds, ...(integer ? { relativeGap: 1e-4 } : {}) });
  };

  // A pattern filled up with pods the duals price at zero: the same reduced cost, and integer solutions need fewer nodes.
  const complete = (counts: number[], t: Variant) => {
    const used = new Float64Array(t.o.eff.length);
    counts.forEach((c, k) => {
      for (let d = 0; d < used.length; d++) used[d] += c * kinds[k].vec[d];
    });
    const more = fill(
      pr.bySize,
      kinds,
      t.o.eff.map((v, d) => v - used[d]),
      limitOf(pr, t, n).map((x, k) => x - counts[k]),
    );
    return counts.map((c, k) => c + more[k]);
  };

  let lb = 0;
  let pi: number[] | undefined;
  for (let round = 0; round < o.maxRounds; round++) {
    const r = master(false, o.lpSeconds);
    if (r.status === 'error' || r.status === 'infeasible' || !r.duals) break;
    const duals = r.duals.map((d) => Math.max(0, d));
    pi = duals;
    // Greedy pricing first (a knapsack fill in order of value density); the exact branch and bound only when it
    // finds nothing, which also proves the bound.
    const candidates: { p: Pattern; rc: number }[] = [];
    types.forEach((t, i) => {
      const upper = limitOf(pr, t, n);
      const counts = fill(densityOrder(duals, kinds, t.o.eff, upper), kinds, t.o.eff, upper);
      const rc = t.price - counts.reduce((sum, c, k) => sum + c * duals[k], 0);
      if (rc < -1e-7 * Math.max(1, t.price)) candidates.push({ p: { type: i, counts: complete(counts, t), cost: t.price }, rc });
    });
    let theta = 1;
    if (candidates.length === 0) {
      types.forEach((t, i) => {
        const upper = limitOf(pr, t, n);
        // A variant whose fractional bound is within its price has no improving pattern and keeps θ at 1.
        const frac = knapsackBound(duals, upper, kinds, t.o.eff, t.allowed);
        if (frac <= t.price) return;
        const best = bestPattern(duals, kinds, t.o.eff, upper, o.pricingBudget);
        const ratioBound = best.exact ? best.value : frac;
        if (t.price > 0) theta = Math.max(theta, ratioBound / t.price);
        const rc = t.price - best.value;
        if (rc < -1e-7 * Math.max(1, t.price)) candidates.push({ p: { type: i, counts: complete(best.counts, t), cost: t.price }, rc });
      });
      lb = Math.max(lb, duals.reduce((sum, p, k) => sum + p * n[k], 0) / theta);
    }
    candidates.sort((a, b) => a.rc - b.rc);
    let added = 0;
    for (const c of candidates.slice(0, PER_ROUND)) if (patterns.add(c.p)) added++;
    if (added === 0) break;
  }
  // The loop ends on an exactly priced round, which gave the bound; if it ran out of rounds first, the fractional
  // knapsack bound of the last duals stands in (computed once, not every greedy round).
  if (pi && lb === 0) lb = farleyBound(pr, pi);
  if (pi) enrich(pr, patterns, pi, complete);
  const costOf = (c: { p: Pattern; m: number }[] | undefined) => (c && covers(c, n) ? c.reduce((sum, x) => sum + x.m * x.p.cost, 0) : Infinity);
  const dived = dive(pr, patterns, lp, o.lpSeconds);
  // The MIP only when the dive leaves a gap worth its time limit to the LP over the same patterns.
  const relaxed = master(false, o.lpSeconds);
  if (dived && relaxed.status === 'optimal' && costOf(dived) <= relaxed.objective * (1 + GOOD_ENOUGH)) return { lb, chosen: dived };
  const mip = master(true, o.mipSeconds);
  const fromMip =
    mip.status === 'optimal' || mip.status === 'limit' ? patterns.list.map((p, j) => ({ p, m: Math.round(mip.x[j]) })).filter((x) => x.m > 0) : undefined;
  const chosen = costOf(dived) <= costOf(fromMip) ? dived : fromMip;
  if (!chosen || costOf(chosen) === Infinity) return { lb, why: `MIP ${mip.status}` };
  return { lb, chosen };
}

function covers(chosen: { p: Pattern; m: number }[], n: number[]): boolean {
  return n.every((need, k) => chosen.reduce((sum, x) => sum + x.m * x.p.counts[k], 0) >= need);
}

/**
 * An integer fleet by diving on the LP: take every pattern the LP uses whole, then the one it uses most, and
 * solve again for the pods left; a few LPs, where the MIP may need its whole time limit to find as good a fleet.
 */
function dive(pr: PackProblem, patterns: PatternSet, lp: LpSolver, lpSeconds: number): { p: Pattern; m: number }[] | undefined {
  const left = [...pr.n];
  const taken = new Map<Pattern, number>();
  const list = patterns.list;
  for (let step = 0; step < 500 && left.some((x) => x > 0); step++) {
    const r = lp.solve(
      {
        objective: list.map((p) => p.cost),
        rows: left.map((need, k) => ({
          terms: list.map((p, j) => [j, Math.min(p.counts[k], need)] as [number, number]).filter(([, c]) => c > 0),
          lo: need,
          hi: Infinity,
        })),
      },
      { timeLimitSeconds: lpSeconds },
    );
    if (r.status !== 'optimal') return undefined;
    let took = false;
    const take = (j: number, m: number) => {
      const p = list[j];
      taken.set(p, (taken.get(p) ?? 0) + m);
      p.counts.forEach((c, k) => {
        left[k] = Math.max(0, left[k] - c * m);
      });
      took = true;
    };
    r.x.forEach((x, j) => {
      if (Math.floor(x + 1e-9) >= 1) take(j, Math.floor(x + 1e-9));
    });
    if (!took) {
      let best = -1;
      r.x.forEach((x, j) => {
        if (x > 1e-9 && (best < 0 || x > r.x[best])) best = j;
      });
      if (best < 0) return undefined;
      take(best, 1);
    }
  }
  if (left.some((x) => x > 0)) return undefined;
  return [...taken].map(([p, m]) => ({ p, m }));
}

/** Near-optimal patterns kept for the MIP: reduced cost within this share of the variant's price. */
const NEAR = 0.05;
const ENRICH_MAX = 2_000;

/**
 * The LP's patterns are what the LP needs, not always what the best integer fleet needs (it rounds up). For each
 * variant whose best pattern is near zero reduced cost, add its other maximal patterns that are near too: one
 * kind fixed at each count, the rest filled largest first.
 */
function enrich(pr: PackProblem, patterns: PatternSet, pi: number[], complete: (counts: number[], t: Variant) => number[]): void {
  const { kinds, n, types } = pr;
  let added = 0;
  types.forEach((t, i) => {
    const upper = limitOf(pr, t, n);
    const best = bestPattern(pi, kinds, t.o.eff, upper, 2_000);
    if (t.price - best.value > NEAR * t.price) return;
    for (let a = 0; a < kinds.length && added < ENRICH_MAX; a++) {
      let max = upper[a];
      for (let d = 0; d < t.o.eff.length; d++) if (kinds[a].vec[d] > 0) max = Math.min(max, Math.floor((t.o.eff[d] + 1e-9) / kinds[a].vec[d]));
      for (let c = 0; c <= max && added < ENRICH_MAX; c++) {
        const start = kinds.map((_, k) => (k === a ? c : 0));
        const counts = complete(start, t);
        const value = counts.reduce((sum, x, k) => sum + x * pi[k], 0);
        if (t.price - value <= NEAR * t.price && patterns.add({ type: i, counts, cost: t.price })) added++;
      }
    }
  });
}

/** Farley's bound from duals `pi` with each variant's fractional knapsack bound (valid without exact pricing). */
function farleyBound(pr: PackProblem, pi: number[]): number {
  let theta = 1;
  for (const t of pr.types) if (t.price > 0) theta = Math.max(theta, knapsackBound(pi, limitOf(pr, t, pr.n), pr.kinds, t.o.eff, t.allowed) / t.price);
  return pi.reduce((sum, p, k) => sum + p * pr.n[k], 0) / theta;
}
