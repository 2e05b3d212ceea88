/**
 * The consolidation decision for a set of candidates (docs/karpenter-reference.md §4.3 computeConsolidation, spot→spot rules),
 * plus nodewright's multi-replacement: several nodes replaced by several cheaper ones (Σ new < Σ old).
 */
import { CapacityType } from '../model/labels';
import type { PlannedNodeClaim } from '../scheduling/types';
import type { ClusterView } from './candidates';
import { cannotConsolidate } from './prefilter';
import { launchCapacityType, restrict, simulate, worstPrice } from './simulate';
import type { Candidate } from './types';

const SpotToSpotMinOptions = 15;
/** Price comparisons ignore float noise below a millionth of a dollar per hour (Σ of prices is inexact). */
const EPS = 1e-6;
const money = (n: number) => `$${n.toFixed(4)}/h`;

export type Outcome =
  { ok: true; action: 'delete' | 'replace'; replacements: PlannedNodeClaim[]; savingsPerHour: number; note?: string } | { ok: false; why: string };

export interface ConsolidationMode {
  method: 'multi-node' | 'single-node';
  /** 1 for Karpenter's methods; >1 allows nodewright's multi-replacement. */
  maxReplacements: number;
  spotToSpot: boolean;
  /** Re-pack the simulated new claims toward the cheapest fleet (nodewright's splitting consolidation). */
  split?: boolean;
}

const sum = (cs: Candidate[]) => cs.reduce((s, c) => s + c.price, 0);

/** Only options cheaper than the cheapest candidate of the same type (Karpenter's filterOutSameType). */
function filterSameType(claim: PlannedNodeClaim, candidates: Candidate[]) {
  let max = Infinity;
  const names = new Set(claim.instanceTypes.map((t) => t.name));
  for (const c of candidates) if (names.has(c.instanceType) && c.price < max) max = c.price;
  return max;
}

function replaceOne(claim: PlannedNodeClaim, candidates: Candidate[], mode: ConsolidationMode): Outcome {
  const total = sum(candidates);
  const ct = launchCapacityType(claim);
  const allSpot = candidates.every((c) => c.capacityType === CapacityType.spot);
  let bound = total;
  if (mode.method === 'multi-node') bound = Math.min(bound, filterSameType(claim, candidates));
  let types = claim.instanceTypes.filter((it) => worstPrice(it, claim, ct) < bound - EPS);
  if (allSpot && ct === CapacityType.spot) {
    if (!mode.spotToSpot) return { ok: false, why: 'spot-to-spot consolidation is disabled (SpotToSpotConsolidation feature gate)' };
    if (mode.method === 'single-node') {
      if (types.length < SpotToSpotMinOptions) {
        return { ok: false, why: `spot-to-spot rule: ${types.length} cheaper spot option(s), at least ${SpotToSpotMinOptions} required` };
      }
      types = types.slice(0, SpotToSpotMinOptions);
    }
  }
  if (types.length === 0) {
    const cheapest = claim.instanceTypes[0];
    const p = cheapest ? worstPrice(cheapest, claim, ct) : Infinity;
    return { ok: false, why: `not cheaper: the cheapest replacement (${cheapest?.name ?? 'none'}, ${ct}, worst ${money(p)}) is not below ${money(bound)}` };
  }
  const replacement = restrict(claim, types, ct);
  return { ok: true, action: 'replace', replacements: [replacement], savingsPerHour: total - replacement.price };
}

/** N ≥ 2 replacements: each claim keeps options below its cheapest worst price plus an even share of the slack. */
function replaceMany(claims: PlannedNodeClaim[], candidates: Candidate[], mode: ConsolidationMode): Outcome {
  const total = sum(candidates);
  const allSpot = candidates.every((c) => c.capacityType === CapacityType.spot);
  const cts = claims.map(launchCapacityType);
  if (allSpot && cts.every((ct) => ct === CapacityType.spot) && !mode.spotToSpot) {
    return { ok: false, why: 'spot-to-spot consolidation is disabled (SpotToSpotConsolidation feature gate)' };
  }
  const mins = claims.map((c, i) => Math.min(...c.instanceTypes.map((it) => worstPrice(it, c, cts[i]))));
  const slack = total - mins.reduce((s, m) => s + m, 0);
  if (!(slack > EPS)) return { ok: false, why: `not cheaper: ${claims.length} replacements cost at least ${money(total - slack)}, candidates ${money(total)}` };
  const share = slack / claims.length;
  const out = claims.map((c, i) =>
    restrict(
      c,
      c.instanceTypes.filter((it) => worstPrice(it, c, cts[i]) < mins[i] + share - EPS / claims.length),
      cts[i],
    ),
  );
  const price = out.reduce((s, c) => s + c.price, 0);
  return {
    ok: true,
    action: 'replace',
    replacements: out,
    savingsPerHour: total - price,
    note: `multi-replacement: ${candidates.length} nodes (${money(total)}) replaced by ${out.length} nodes (≤ ${money(total)} at worst, ${money(price)} expected) using the scheduler's packing`,
  };
}

export function computeConsolidation(view: ClusterView, candidates: Candidate[], mode: ConsolidationMode): Outcome {
  const impossible = mode.maxReplacements === 1 ? cannotConsolidate(view, candidates) : undefined;
  if (impossible) return { ok: false, why: impossible };
  const sim = simulate(view, candidates, { split: mode.split });
  if (sim.failure) return { ok: false, why: sim.failure };
  const n = sim.newClaims.length;
  if (n === 0) return { ok: true, action: 'delete', replacements: [], savingsPerHour: sum(candidates) };
  if (n > mode.maxReplacements) return { ok: false, why: `would need ${n} new nodes (at most ${mode.maxReplacements})` };
  return n === 1 && mode.maxReplacements === 1
    ? replaceOne(sim.newClaims[0], candidates, mode)
    : n === 1
      ? replaceOne(sim.newClaims[0], candidates, { ...mode, method: 'multi-node' })
      : replaceMany(sim.newClaims, candidates, mode);
}
