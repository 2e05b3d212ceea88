/**
 * Cost-optimal re-packing of the new claims (issue #12): after the Karpenter-faithful pass has decided which
 * pods need new capacity, the pods of the new claims of each NodePool (per zone when the claims are pinned to
 * one) are packed again toward the cheapest fleet — within the limits groups.ts sets from their placement
 * constraints (zone kept for zone-level rules, one per node for hostname rules, pods with other rules left on
 * their greedy claims): a bin-packing LP over "patterns" (a type and how many pods of each kind it holds)
 * solved by column generation, then a MIP over the generated patterns (column-generation.ts); small groups use a
 * first-fit-decreasing heuristic. The greedy claims are among the patterns; every new claim is rebuilt through
 * the scheduler's own InProgressClaim (rebuild.ts), and a group that does not rebuild cleanly — or does not
 * come out cheaper and charged no more against its pool's limits — keeps its greedy claims.
 */
import type { Pod } from '../../model/kube';
import type { NodePool } from '../../model/karpenter';
import type { LpSolver } from '../../ports/lp-solver';
import { Dims } from '../dims';
import { buildTemplate, type Template, typeMatches } from '../template';
import { columnGeneration } from './column-generation';
import { type Group, groupsOf, ruleKey } from './groups';
import { fill, fits, type Kind, largestFirst, limitOf, type PackProblem, type Pattern, PatternSet, type Variant } from './patterns';
import { rebuildClaims } from './rebuild';
import type { Plan, PlannedNodeClaim, SchedulingInput } from '../types';
import { Label } from '../../model/labels';

export interface RepackOptions {
  /** Column-generation rounds per group (each one LP). Default 40. */
  maxRounds?: number;
  /** HiGHS time limit per LP (s). Default 0.5. */
  lpSeconds?: number;
  /** HiGHS time limit for the final MIP of a group (s). Default: 0.25 s + 1 s per 500 pods, at most 2 s. */
  mipSeconds?: number;
  /** Branch-and-bound nodes per instance type when pricing exactly (a larger budget tightens the bound). Default 5,000. */
  pricingBudget?: number;
  /** Groups with at least this many movable pods use the LP; smaller ones the heuristic. Default SMALL_GROUP. */
  lpFrom?: number;
}

export interface RepackReport {
  groups: {
    nodePool: string;
    pods: number;
    greedyPerHour: number;
    optimizedPerHour: number;
    lowerBoundPerHour: number;
    kept: 'optimized' | 'greedy';
    why?: string;
  }[];
}

/** Groups with fewer movable pods are packed by a first-fit-decreasing heuristic, without the LP solver. */
export const SMALL_GROUP = 40;

/** Whether a plan has groups to re-pack, and whether one is large enough to need the LP solver. */
export interface RepackNeeds {
  groups: boolean;
  lp: boolean;
  /** The groups, found once: repackPlan reuses them for the same plan (on 40k pods they take ~0.2 s to find). */
  readonly found: { plan: Plan; groups: Group[] };
}

export function repackNeeds(input: SchedulingInput, plan: Plan): RepackNeeds {
  const gs = groupsOf(input, plan, input.options?.preferencePolicy === 'Ignore');
  return { groups: gs.length > 0, lp: gs.some((g) => g.pods.length >= SMALL_GROUP), found: { plan, groups: gs } };
}

/** The cheapest packing found for one group, as claims (or why the greedy claims stay). */
function repackGroup(
  input: SchedulingInput,
  g: Group,
  lp: LpSolver | undefined,
  o: Required<RepackOptions>,
  seq: { n: number },
): { claims?: PlannedNodeClaim[]; lb: number; why?: string } {
  const names = new Set<string>(['pods']);
  for (const p of g.pods) for (const k in p.requests) names.add(k);
  for (const d of input.daemonSets) for (const k in d.template.requests) names.add(k);
  const dims = new Dims(names);
  const template: Template = buildTemplate(g.pool, input.instanceTypes[g.pool.name] ?? [], input.daemonSets, dims);
  const greedyExotic = g.claims.some((c) => c.instanceTypes[0]?.exotic);

  // Kinds: pods with the same request vector, requirements and zone (and, for one-per-node pods, the same rules).
  const byKey = new Map<string, Kind>();
  for (const p of g.pods) {
    const vec = dims.vec({ ...p.requests, pods: 1 });
    const podReqs = g.states.get(p)!.requirements;
    const one = g.onePerNode.has(p);
    const zone = g.zoneOf.get(p) ?? null;
    const key = `${vec.join(',')}|${JSON.stringify(podReqs.toNodeSelector())}|${zone ?? ''}|${one ? ruleKey(p) : ''}`;
    let k = byKey.get(key);
    if (!k) byKey.set(key, (k = { vec, pods: [], reqs: template.requirements.intersect(podReqs), cap: one ? 1 : Infinity, zone }));
    k.pods.push(p);
  }
  const kinds = [...byKey.values()];
  const n = kinds.map((k) => k.pods.length);

  const types = variantsOf(template, kinds, greedyExotic);
  if (types.length === 0) return { lb: 0, why: 'no candidate instance type' };
  if (kinds.some((_, k) => !types.some((t) => t.allowed[k]))) return { lb: 0, why: 'a pod fits no candidate instance type' };
  const pr: PackProblem = { kinds, n, types, bySize: largestFirst(kinds) };
  const { bySize } = pr;

  const patterns = new PatternSet();
  // The greedy claims as patterns at their cheapest fitting variant (the greedy plan stays a feasible solution).
  const kindOf = new Map<Pod, number>();
  kinds.forEach((k, i) => {
    for (const p of k.pods) kindOf.set(p, i);
  });
  for (const c of g.claims) {
    const counts = kinds.map(() => 0);
    for (const p of c.pods) counts[kindOf.get(p)!]++;
    let best = -1;
    types.forEach((t, i) => {
      const ok = counts.every((x, k) => x === 0 || (t.allowed[k] && x <= kinds[k].cap)) && fits(counts, kinds, t.o.eff);
      if (ok && (best < 0 || t.price < types[best].price)) best = i;
    });
    if (best >= 0) patterns.add({ type: best, counts, cost: types[best].price });
  }
  // First-fit-decreasing fills of every variant.
  types.forEach((t, i) => patterns.add({ type: i, counts: fill(bySize, kinds, t.o.eff, limitOf(pr, t, n)), cost: t.price }));

  let chosen: { p: Pattern; m: number }[];
  let lb = 0;
  if (g.pods.length < o.lpFrom || !lp) {
    // A small group (or no LP solver): per zone the pods must stay in (and once for the others), the best
    // single-variant first-fit-decreasing packing.
    chosen = [];
    for (const zone of new Set(kinds.map((k) => k.zone))) {
      const part = n.map((x, k) => (kinds[k].zone === zone ? x : 0));
      const best = singleVariant(pr, part);
      if (!best) return { lb, why: 'no single instance type holds every pod' };
      chosen.push(...best);
    }
  } else {
    const r = columnGeneration(pr, patterns, lp, o);
    lb = r.lb;
    if (!r.chosen) return { lb, why: r.why };
    chosen = r.chosen;
  }
  const claims = rebuildClaims(input, template, dims, types, kinds, g.states, chosen, seq);
  return typeof claims === 'string' ? { lb, why: claims } : { claims, lb };
}

/** The cheapest packing of `left` on one variant, first-fit-decreasing (undefined when no variant holds them all). */
function singleVariant(pr: PackProblem, left0: number[]): { p: Pattern; m: number }[] | undefined {
  let best: { p: Pattern; m: number }[] | undefined;
  let bestCost = Infinity;
  pr.types.forEach((t, i) => {
    const left = [...left0];
    const bins: Pattern[] = [];
    while (left.some((x) => x > 0)) {
      const counts = fill(pr.bySize, pr.kinds, t.o.eff, limitOf(pr, t, left));
      if (counts.every((c) => c === 0)) return; // a pod that never fits this variant
      counts.forEach((c, k) => {
        left[k] -= c;
      });
      bins.push({ type: i, counts, cost: t.price });
    }
    const cost = bins.length * t.price;
    if (cost < bestCost) {
      bestCost = cost;
      best = bins.map((p) => ({ p, m: 1 }));
    }
  });
  return best;
}

/**
 * Variants: each type the pool allows, launched as each capacity type it offers, in each zone some pods must stay
 * in and in any zone, at its cheapest such offering; dominated ones dropped.
 */
function variantsOf(template: Template, kinds: Kind[], greedyExotic: boolean): Variant[] {
  const types: Variant[] = [];
  const zones = [null, ...new Set(kinds.flatMap((k) => (k.zone === null ? [] : [k.zone])))];
  for (const opt of template.options) {
    if (opt.it.exotic && !greedyExotic) continue;
    for (const zone of zones) {
      let prices = opt.byCapacity;
      if (zone !== null) {
        prices = {};
        for (const x of opt.offerings) if (x.zone === zone && !(x.price >= (prices[x.capacityType] ?? Infinity))) prices[x.capacityType] = x.price;
      }
      for (const ct in prices) {
        const allowed = kinds.map(
          (k) =>
            (k.zone === null || k.zone === zone) && fits([1], [k], opt.eff) && typeMatches(opt.it, k.reqs) && (k.reqs.get(Label.capacityType)?.has(ct) ?? true),
        );
        if (allowed.some(Boolean)) types.push({ o: opt, ct, zone, price: prices[ct]!, allowed });
      }
    }
  }
  types.sort((a, b) => a.price - b.price);
  // Cheapest first, a variant is dropped when a kept one is no dearer, holds every kind it holds and has at least
  // its allocatable (domination is transitive, so the kept ones are enough to compare with).
  const covers = (u: Variant, t: Variant) => t.allowed.every((a, k) => !a || u.allowed[k]);
  const kept: Variant[] = [];
  for (const t of types) {
    if (!kept.some((u) => covers(u, t) && u.o.eff.every((v, d) => v >= t.o.eff[d]))) kept.push(t);
  }
  return kept;
}

/**
 * Limits: the greedy pass charged each claim the capacity of its largest option (so a launch can never exceed
 * a limit); the new claims may not be charged more, per limited resource and in node count.
 */
function withinLimits(pool: NodePool, greedy: PlannedNodeClaim[], next: PlannedNodeClaim[]): boolean {
  const keys = Object.keys(pool.limits);
  if (keys.length === 0) return true;
  const charge = (cs: PlannedNodeClaim[], k: string) =>
    k === 'nodes' ? cs.length : cs.reduce((s, c) => s + Math.max(0, ...c.instanceTypes.map((t) => t.capacity[k] ?? 0)), 0);
  return keys.every((k) => charge(next, k) <= charge(greedy, k));
}

/**
 * The claims with each one's instance types cut to those no larger, in any limited resource, than its cheapest (the
 * one it is priced at): re-packing makes many small claims, each of which could otherwise still launch as a giant
 * type and be charged as one. Undefined when a minValues requirement could be broken by the cut.
 */
function trimmedForLimits(pool: NodePool, claims: PlannedNodeClaim[]): PlannedNodeClaim[] | undefined {
  if (pool.template.requirements.some((r) => r.minValues !== undefined)) return undefined;
  const keys = Object.keys(pool.limits).filter((k) => k !== 'nodes');
  return claims.map((c) => {
    const cheapest = c.instanceTypes[0];
    const kept = c.instanceTypes.filter((t) => keys.every((k) => (t.capacity[k] ?? 0) <= (cheapest.capacity[k] ?? 0)));
    const names = new Set(kept.map((t) => t.name));
    const requirements = c.requirements.map((r) =>
      r.key === Label.instanceType && r.operator === 'In' ? { ...r, values: (r.values ?? []).filter((v) => names.has(v)) } : r,
    );
    return { ...c, instanceTypes: kept, requirements };
  });
}

/** Each claim of a pool with limits cut to the types no larger than its cheapest in the limited resources (where minValues allows). */
export function trimmedToLimits(pools: readonly NodePool[], claims: readonly PlannedNodeClaim[]): PlannedNodeClaim[] {
  const byPool = new Map(pools.map((p) => [p.name, p]));
  return claims.map((c) => {
    const pool = byPool.get(c.nodePool);
    if (!pool || Object.keys(pool.limits).length === 0) return c;
    return trimmedForLimits(pool, [c])?.[0] ?? c;
  });
}

/** The re-packed claims as they may launch within the pool's limits (trimmed when needed), or undefined. */
function withinPoolLimits(pool: NodePool, greedy: PlannedNodeClaim[], next: PlannedNodeClaim[]): PlannedNodeClaim[] | undefined {
  if (withinLimits(pool, greedy, next)) return next;
  const trimmed = trimmedForLimits(pool, next);
  return trimmed && withinLimits(pool, greedy, trimmed) ? trimmed : undefined;
}

/**
 * The plan with each re-packable group's claims replaced by a cheaper packing when one is found. Pure: the LP
 * solver is a port, and its time limits bound the work.
 */
export function repackPlan(
  input: SchedulingInput,
  plan: Plan,
  lp: LpSolver | undefined,
  options: RepackOptions = {},
  needs?: RepackNeeds,
): { plan: Plan; report: RepackReport } {
  const report: RepackReport = { groups: [] };
  const groups = needs?.found.plan === plan ? needs.found.groups : groupsOf(input, plan, input.options?.preferencePolicy === 'Ignore');
  if (groups.length === 0) return { plan, report };
  const replaced = new Map<PlannedNodeClaim, PlannedNodeClaim[]>();
  const seq = { n: 0 };
  for (const g of groups) {
    const o: Required<RepackOptions> = {
      maxRounds: options.maxRounds ?? 40,
      lpSeconds: options.lpSeconds ?? 0.5,
      mipSeconds: options.mipSeconds ?? Math.min(2, 0.25 + g.pods.length / 500),
      lpFrom: options.lpFrom ?? SMALL_GROUP,
      pricingBudget: options.pricingBudget ?? 5_000,
    };
    const greedy = g.claims.reduce((s, c) => s + c.price, 0);
    const r = repackGroup(input, g, lp, o, seq);
    const optimized = r.claims?.reduce((s, c) => s + c.price, 0) ?? Infinity;
    const allowed = r.claims && withinPoolLimits(g.pool, g.claims, r.claims);
    const overLimit = r.claims !== undefined && allowed === undefined;
    if (overLimit) r.why = "the cheaper packing could exceed the NodePool's limits";
    if (allowed) r.claims = allowed;
    const better = r.claims !== undefined && !overLimit && optimized < greedy - 1e-9;
    report.groups.push({
      nodePool: g.pool.name,
      pods: g.pods.length,
      greedyPerHour: greedy,
      optimizedPerHour: better ? optimized : greedy,
      lowerBoundPerHour: r.lb,
      kept: better ? 'optimized' : 'greedy',
      ...(r.why ? { why: r.why } : !better ? { why: 'no cheaper packing found' } : {}),
    });
    if (!better) continue;
    replaced.set(g.claims[0], r.claims!);
    for (const c of g.claims.slice(1)) replaced.set(c, []);
  }
  if (replaced.size === 0) return { plan, report };
  const nodeClaims = plan.nodeClaims.flatMap((c) => replaced.get(c) ?? [c]);
  return { plan: { ...plan, nodeClaims }, report };
}
