/**
 * Cost-optimal re-packing of the new claims (issue #12): after the Karpenter-faithful pass has decided which
 * pods need new capacity, pods with no pod-level placement constraints (no topology spread, pod affinity or
 * anti-affinity, host ports or volumes) that landed on claims of the same NodePool with the same requirements
 * are packed again toward the cheapest fleet: a bin-packing LP over "patterns" (an instance type and how many
 * pods of each request shape it holds) solved by column generation, then the same master as a MIP over the
 * generated patterns. The greedy claims are among the patterns, so the result is never dearer than the greedy
 * plan; every new claim is rebuilt through the scheduler's own InProgressClaim (requirements, taints,
 * offerings, DaemonSet overhead and ports, minValues, 60 types), and a group that does not rebuild cleanly —
 * or does not come out cheaper — keeps its greedy claims. Pools with limits are left as they are.
 */
import type { Pod } from '../../model/kube';
import type { NodePool } from '../../model/karpenter';
import type { LinearProgram, LpSolver } from '../../ports/lp-solver';
import { Dims } from '../dims';
import { finalizeClaim } from '../finalize';
import { InProgressClaim } from '../nodeclaim';
import { newPodState, podStateIn, type PodState } from '../pod-data';
import { solve } from '../solve';
import { Requirement } from '../requirements';
import { buildTemplate, type Template, typeMatches } from '../template';
import { Topology } from '../topology';
import { farleyBound, fill, fits, knapsackBound, type Kind, type Pattern, type Variant } from './patterns';
import type { Plan, PlannedNodeClaim, SchedulingInput } from '../types';
import { Label } from '../../model/labels';

export interface RepackOptions {
  /** Column-generation rounds per group (each one LP). Default 40. */
  maxRounds?: number;
  /** HiGHS time limit per LP (s). Default 0.5. */
  lpSeconds?: number;
  /** HiGHS time limit for the final MIP of a group (s). Default: 0.3 s + 1 s per 1,000 pods, at most 3 s. */
  mipSeconds?: number;
  /**
   * When the greedy pricing finds no better pattern, price every type exactly (a knapsack MIP each): the LP is
   * then solved to optimality and the lower bound is tight. Slower; for benchmarks. Default false.
   */
  exactPricing?: boolean;
  /** Groups with at least this many movable pods use the LP; smaller ones the heuristic. Default SMALL_GROUP. */
  lpFrom?: number;
}

export interface RepackReport {
  groups: { nodePool: string; pods: number; greedyPerHour: number; optimizedPerHour: number; lowerBoundPerHour: number; kept: 'optimized' | 'greedy'; why?: string }[];
}

/** Groups with fewer movable pods are packed by a first-fit-decreasing heuristic, without the LP solver. */
export const SMALL_GROUP = 40;

/** Pods the re-packing may move: nothing but resources, requirements and tolerations ties them to a node. */
export function isFreePod(p: Pod): boolean {
  const a = p.affinity;
  return p.topologySpreadConstraints.length === 0 && p.hostPorts.length === 0 && p.volumeClaims.length === 0
    && !(a?.podAffinity?.required?.length || a?.podAffinity?.preferred?.length || a?.podAntiAffinity?.required?.length || a?.podAntiAffinity?.preferred?.length);
}


interface Group { pool: NodePool; claims: PlannedNodeClaim[]; pods: Pod[] }


/** Whether the plan has groups to re-pack, and whether one is large enough to need the LP solver. */
export function repackNeeds(input: SchedulingInput, plan: Plan): { groups: boolean; lp: boolean } {
  const gs = groupsOf(input, plan, input.options?.preferencePolicy === 'Ignore');
  return { groups: gs.length > 0, lp: gs.some((g) => g.pods.length >= SMALL_GROUP) };
}

function groupsOf(input: SchedulingInput, plan: Plan, ignorePrefs: boolean): Group[] {
  const pools = new Map(input.nodePools.map((p) => [p.name, p]));
  const groups = new Map<string, Group>();
  for (const c of plan.nodeClaims) {
    const pool = pools.get(c.nodePool);
    if (!pool || c.pods.length === 0 || !c.pods.every(isFreePod)) continue;
    // Pods pinned to zones keep their claims (a pattern is priced zone-free).
    if (c.pods.some((p) => { const r = newPodState(p, 0, [], ignorePrefs).requirements; return r.has(Label.zone) || r.has(Label.zoneId); })) continue;
    const key = c.nodePool;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { pool, claims: [], pods: [] }));
    g.claims.push(c);
    g.pods.push(...c.pods);
  }
  // One pod on one claim is already its cheapest fitting type.
  return [...groups.values()].filter((g) => g.pods.length >= 2);
}

/** The cheapest packing found for one group, as claims (or why the greedy claims stay). */
function repackGroup(input: SchedulingInput, g: Group, lp: LpSolver | undefined, o: Required<RepackOptions>, seq: { n: number }): { claims?: PlannedNodeClaim[]; lb: number; why?: string } {
  const ignorePrefs = input.options?.preferencePolicy === 'Ignore';
  const names = new Set<string>(['pods']);
  for (const p of g.pods) for (const k in p.requests) names.add(k);
  for (const d of input.daemonSets) for (const k in d.template.requests) names.add(k);
  const dims = new Dims(names);
  const template: Template = buildTemplate(g.pool, input.instanceTypes[g.pool.name] ?? [], input.daemonSets, dims);
  const greedyExotic = g.claims.some((c) => c.instanceTypes[0]?.exotic);

  // Kinds: pods with the same request vector and requirements.
  const byKey = new Map<string, Kind>();
  for (const p of g.pods) {
    const vec = dims.vec({ ...p.requests, pods: 1 });
    const podReqs = newPodState(p, 0, [], ignorePrefs).requirements;
    const key = `${vec.join(',')}|${JSON.stringify(podReqs.toNodeSelector())}`;
    let k = byKey.get(key);
    if (!k) byKey.set(key, (k = { vec, pods: [], reqs: template.requirements.intersect(podReqs) }));
    k.pods.push(p);
  }
  const kinds = [...byKey.values()];
  const n = kinds.map((k) => k.pods.length);

  // Variants: each type the pool allows, launched as each capacity type it offers; dominated ones dropped.
  let types: Variant[] = [];
  for (const opt of template.options) {
    if (opt.it.exotic && !greedyExotic) continue;
    for (const ct in opt.byCapacity) {
      const allowed = kinds.map((k) => fits([1], [k], opt.eff) && typeMatches(opt.it, k.reqs) && (k.reqs.get(Label.capacityType)?.has(ct) ?? true));
      if (allowed.some(Boolean)) types.push({ o: opt, ct, price: opt.byCapacity[ct]!, allowed });
    }
  }
  types.sort((a, b) => a.price - b.price);
  const covers = (u: Variant, t: Variant) => t.allowed.every((a, k) => !a || u.allowed[k]);
  types = types.filter((t, i) => !types.some((u, j) => j !== i && u.price <= t.price && (u.price < t.price || j < i) && covers(u, t) && u.o.eff.every((v, d) => v >= t.o.eff[d])));
  if (types.length === 0) return { lb: 0, why: 'no candidate instance type' };
  if (kinds.some((_, k) => !types.some((t) => t.allowed[k]))) return { lb: 0, why: 'a pod fits no candidate instance type' };
  const limitOf = (t: Variant, limit: number[]) => limit.map((x, k) => (t.allowed[k] ? x : 0));

  const patterns: Pattern[] = [];
  const seen = new Set<string>();
  const add = (p: Pattern) => {
    if (p.counts.every((c) => c === 0)) return false;
    const key = `${p.type}|${p.counts.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    patterns.push(p);
    return true;
  };
  // The greedy claims as patterns at their cheapest fitting variant (the greedy plan stays a feasible solution).
  for (const c of g.claims) {
    const counts = kinds.map((k) => c.pods.filter((p) => k.pods.includes(p)).length);
    let best = -1;
    types.forEach((t, i) => {
      if (counts.every((x, k) => x === 0 || t.allowed[k]) && fits(counts, kinds, t.o.eff) && (best < 0 || t.price < types[best].price)) best = i;
    });
    if (best >= 0) add({ type: best, counts, cost: types[best].price });
  }
  // First-fit-decreasing fills of every variant.
  const bySize = kinds.map((_, k) => k).sort((a, b) => kinds[b].vec.reduce((s, v) => s + v, 0) - kinds[a].vec.reduce((s, v) => s + v, 0));
  types.forEach((t, i) => add({ type: i, counts: fill(bySize, kinds, t.o.eff, limitOf(t, n)), cost: t.price }));

  let chosen: { p: Pattern; m: number }[];
  let lb = 0;
  if (g.pods.length < o.lpFrom || !lp) {
    // A small group: the best single-type first-fit-decreasing packing, no LP (and no solver to load).
    let best: { p: Pattern; m: number }[] | undefined;
    let bestCost = Infinity;
    types.forEach((t, i) => {
      const left = [...n];
      const bins: Pattern[] = [];
      while (left.some((x) => x > 0)) {
        const counts = fill(bySize, kinds, t.o.eff, limitOf(t, left));
        if (counts.every((c) => c === 0)) return; // a pod that never fits this type
        counts.forEach((c, k) => { left[k] -= c; });
        bins.push({ type: i, counts, cost: t.price });
      }
      const cost = bins.length * t.price;
      if (cost < bestCost) { bestCost = cost; best = bins.map((p) => ({ p, m: 1 })); }
    });
    if (!best) return { lb, why: 'no single instance type holds every pod' };
    chosen = best;
  } else {
    const solved = columnGeneration();
    if (typeof solved === 'string') return { lb, why: solved };
    chosen = solved;
  }
  return rebuild(chosen);

  function columnGeneration(): { p: Pattern; m: number }[] | string {
  const lpSolver = lp!;
  const master = (integer: boolean, seconds: number) => {
    const program: LinearProgram = {
      objective: patterns.map((p) => p.cost),
      rows: kinds.map((_, k) => ({ terms: patterns.map((p, j) => [j, p.counts[k]] as [number, number]).filter(([, c]) => c > 0), lo: n[k], hi: Infinity })),
      ...(integer ? { integer: patterns.map(() => true) } : {}),
    };
    return lpSolver.solve(program, { timeLimitSeconds: seconds, ...(integer ? { relativeGap: 1e-4 } : {}) });
  };

  // Column generation: price new patterns against the kinds' duals. The lower bound is Farley's: the duals
  // scaled down until no type's best pattern (bounded by a fractional knapsack per resource) has a negative
  // reduced cost are dual feasible for the full LP, so Σ n·π / θ never exceeds the cheapest fractional fleet.
  for (let round = 0; round < o.maxRounds; round++) {
    const r = master(false, o.lpSeconds);
    if (r.status === 'error' || r.status === 'infeasible' || !r.duals) break;
    const pi = r.duals.map((d) => Math.max(0, d));
    lb = Math.max(lb, farleyBound(pi, n, kinds, types));
    let added = 0;
    const candidates: { p: Pattern; rc: number }[] = [];
    types.forEach((t, i) => {
      const size = (k: number) => { let s = 0; for (let d = 0; d < t.o.eff.length; d++) if (t.o.eff[d] > 0) s = Math.max(s, kinds[k].vec[d] / t.o.eff[d]); return s || 1e-9; };
      const order = kinds.map((_, k) => k).filter((k) => pi[k] > 0).sort((a, b) => pi[b] / size(b) - pi[a] / size(a));
      const counts = fill(order, kinds, t.o.eff, limitOf(t, n));
      const value = counts.reduce((s, c, k) => s + c * pi[k], 0);
      const rc = t.price - value;
      if (rc < -1e-7 * Math.max(1, t.price)) candidates.push({ p: { type: i, counts, cost: t.price }, rc });
    });
    if (candidates.length === 0 && o.exactPricing) {
      // Exact pricing: the best pattern of each type is a small knapsack MIP; their values also tighten the bound.
      let theta = 1;
      types.forEach((t, i) => {
        const kn = lpSolver.solve({
          objective: kinds.map((_, k) => -pi[k]),
          rows: Array.from(t.o.eff, (cap, d) => ({ terms: kinds.map((k, j) => [j, k.vec[d]] as [number, number]).filter(([, c]) => c > 0), lo: -Infinity, hi: cap })),
          upper: limitOf(t, n), integer: kinds.map(() => true),
        }, { timeLimitSeconds: o.lpSeconds });
        if (kn.status !== 'optimal') { theta = Math.max(theta, knapsackBound(pi, n, kinds, t.o.eff, t.allowed) / t.price); return; }
        const counts = kn.x.map((v) => Math.round(v));
        const value = counts.reduce((sum, c, k) => sum + c * pi[k], 0);
        if (t.price > 0) theta = Math.max(theta, value / t.price);
        if (t.price - value < -1e-7 * Math.max(1, t.price)) candidates.push({ p: { type: i, counts, cost: t.price }, rc: t.price - value });
      });
      lb = Math.max(lb, pi.reduce((sum, p, k) => sum + p * n[k], 0) / theta);
    }
    candidates.sort((a, b) => a.rc - b.rc);
    for (const c of candidates.slice(0, 25)) if (add(c.p)) added++;
    if (added === 0) break;
  }
  const mip = master(true, o.mipSeconds);
  if (mip.status !== 'optimal' && mip.status !== 'limit') return `MIP ${mip.status}`;
  return patterns.map((p, j) => ({ p, m: Math.round(mip.x[j]) })).filter((x) => x.m > 0);
  }

  // Rebuild the chosen patterns as claims through the scheduler's own checks.
  function rebuild(chosenPatterns: { p: Pattern; m: number }[]): { claims?: PlannedNodeClaim[]; lb: number; why?: string } {
  const queues = kinds.map((k) => [...k.pods]);
  const topology = new Topology([], []);
  const policy = input.options?.minValuesPolicy ?? 'Strict';
  const claims: InProgressClaim[] = [];
  const states = new Map<Pod, PodState>();
  const stateOf = (p: Pod) => {
    let s = states.get(p);
    if (!s) states.set(p, (s = podStateIn(p, 0, [], ignorePrefs, dims)));
    return s;
  };
  const open = () => {
    const hostname = `hostname-placeholder-opt-${String(seq.n++).padStart(4, '0')}`;
    const c = new InProgressClaim(template, hostname, 100_000 + seq.n, template.requirements.with(Requirement.in(Label.hostname, [hostname])), template.options, policy, dims);
    claims.push(c);
    return c;
  };
  const place = (c: InProgressClaim, p: Pod): boolean => {
    const s = stateOf(p);
    const planned = c.canAdd(s, topology);
    if (typeof planned === 'string') return false;
    c.commit(s, planned);
    return true;
  };
  const order = [...chosenPatterns].sort((a, b) => b.p.cost - a.p.cost);
  for (const { p, m } of order) {
    for (let i = 0; i < m; i++) {
      if (queues.every((q) => q.length === 0)) break;
      const c = open();
      for (let k = 0; k < kinds.length; k++) {
        for (let x = 0; x < p.counts[k] && queues[k].length > 0; x++) {
          if (!place(c, queues[k][queues[k].length - 1])) return { lb, why: 'a pattern did not rebuild as a claim' };
          queues[k].pop();
        }
      }
      if (c.pods.length === 0) claims.pop();
    }
  }
  if (queues.some((q) => q.length > 0)) return { lb, why: 'the integer solution left pods over' };
  return { claims: claims.map((c) => finalizeClaim(c, input.options?.maxInstanceTypes ?? 60)), lb };
  }
}

/**
 * Limits: the greedy pass charged each claim the capacity of its largest option (so a launch can never exceed
 * a limit); the new claims may not be charged more, per limited resource and in node count.
 */
function withinLimits(pool: NodePool, greedy: PlannedNodeClaim[], next: PlannedNodeClaim[]): boolean {
  const keys = Object.keys(pool.limits);
  if (keys.length === 0) return true;
  const charge = (cs: PlannedNodeClaim[], k: string) => (k === 'nodes' ? cs.length : cs.reduce((s, c) => s + Math.max(0, ...c.instanceTypes.map((t) => t.capacity[k] ?? 0)), 0));
  return keys.every((k) => charge(next, k) <= charge(greedy, k));
}

/**
 * The plan with each re-packable group's claims replaced by a cheaper packing when one is found. Pure: the LP
 * solver is a port, and its time limits bound the work.
 */
export function repackPlan(input: SchedulingInput, plan: Plan, lp: LpSolver | undefined, options: RepackOptions = {}): { plan: Plan; report: RepackReport } {
  const report: RepackReport = { groups: [] };
  const ignorePrefs = input.options?.preferencePolicy === 'Ignore';
  const groups = groupsOf(input, plan, ignorePrefs);
  if (groups.length === 0) return { plan, report };
  const replaced = new Map<PlannedNodeClaim, PlannedNodeClaim[]>();
  const seq = { n: 0 };
  for (const g of groups) {
    const o: Required<RepackOptions> = {
      maxRounds: options.maxRounds ?? 40,
      lpSeconds: options.lpSeconds ?? 0.5,
      mipSeconds: options.mipSeconds ?? Math.min(3, 0.3 + g.pods.length / 1000),
      exactPricing: options.exactPricing ?? false,
      lpFrom: options.lpFrom ?? SMALL_GROUP,
    };
    const greedy = g.claims.reduce((s, c) => s + c.price, 0);
    const r = repackGroup(input, g, lp, o, seq);
    const optimized = r.claims?.reduce((s, c) => s + c.price, 0) ?? Infinity;
    const overLimit = r.claims && !withinLimits(g.pool, g.claims, r.claims);
    if (overLimit) r.why = 'the cheaper packing could exceed the NodePool\'s limits';
    const better = r.claims !== undefined && !overLimit && optimized < greedy - 1e-9;
    report.groups.push({
      nodePool: g.pool.name, pods: g.pods.length, greedyPerHour: greedy, optimizedPerHour: better ? optimized : greedy, lowerBoundPerHour: r.lb,
      kept: better ? 'optimized' : 'greedy', ...(r.why ? { why: r.why } : !better ? { why: 'no cheaper packing found' } : {}),
    });
    if (!better) continue;
    replaced.set(g.claims[0], r.claims!);
    for (const c of g.claims.slice(1)) replaced.set(c, []);
  }
  if (replaced.size === 0) return { plan, report };
  const nodeClaims = plan.nodeClaims.flatMap((c) => replaced.get(c) ?? [c]);
  return { plan: { ...plan, nodeClaims }, report };
}

/**
 * What the deployed provisioner plans: the Karpenter-faithful pass, then the re-packing with the solver-free
 * heuristic (the Lambda bundles do not carry HiGHS' WASM; `plan` uses the LP for large groups).
 */
export function solveCheapest(input: SchedulingInput): Plan {
  return repackPlan(input, solve(input), undefined).plan;
}
