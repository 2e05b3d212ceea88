/**
 * The budgeted methods in Karpenter's order (docs/karpenter-reference.md §4.3): emptiness, drift, multi-node and single-node
 * consolidation; plus nodewright's multi-replacement, weighed against single-node by savings.
 */
import { computeConsolidation, type Outcome } from './consolidate';
import { budgets, byDisruptionCost } from './candidates';
import { simulate } from './simulate';
import { isStatic, staticNodeClaim } from '../scheduling/static-claim';
import type { Pass } from './pass';
import type { Candidate, Command } from './types';
import type { MoveScore } from './balanced';

/** The disrupt machine accepts at most 100 candidates per execution. */
const MaxCommandCandidates = 100;

export function emptiness(pass: Pass): Command | undefined {
  const budget = budgets(pass.view, 'Empty');
  const chosen: Candidate[] = [];
  for (const c of pass.consolidatable.filter((x) => x.pods.length === 0).sort(byDisruptionCost)) {
    if (chosen.length >= MaxCommandCandidates) {
      pass.reject('emptiness', [c], `left for the next pass: a command holds at most ${MaxCommandCandidates} nodes (disrupt execution input)`, {
        reason: 'empty',
      });
      continue;
    }
    if (!budget.take(c.nodePool.name)) {
      pass.reject('emptiness', [c], `budget: ${budget.why(c.nodePool.name)}`, { reason: 'empty' });
      continue;
    }
    chosen.push(c);
  }
  if (chosen.length === 0) return undefined;
  return {
    method: 'emptiness',
    reason: 'empty',
    action: 'delete',
    candidates: chosen,
    replacements: [],
    savingsPerHour: chosen.reduce((s, c) => s + c.price, 0),
  };
}

export function drift(pass: Pass): Command | undefined {
  const budget = budgets(pass.view, 'Drifted');
  const drifted = [...pass.drifted].sort((a, b) => Number(a.candidate.pods.length > 0) - Number(b.candidate.pods.length > 0) || a.since - b.since);
  for (const { candidate: c, reason } of drifted) {
    if (budget.remaining(c.nodePool.name) <= 0) {
      pass.reject('drift', [c], `budget: ${budget.why(c.nodePool.name)}`, { reason: 'drifted', drift: reason });
      continue;
    }
    const driftReasons = { [c.nodeClaim.name]: reason };
    if (isStatic(c.nodePool)) {
      const cmd = staticDrift(pass, c, driftReasons);
      if (cmd) return cmd;
      continue;
    }
    if (c.pods.length === 0)
      return { method: 'drift', reason: 'drifted', action: 'delete', candidates: [c], replacements: [], savingsPerHour: c.price, driftReasons };
    const sim = simulate(pass.view, [c]);
    if (sim.failure) {
      pass.reject('drift', [c], sim.failure, { drift: reason });
      continue;
    }
    const price = sim.newClaims.reduce((s, x) => s + x.price, 0);
    return {
      method: 'drift',
      reason: 'drifted',
      action: sim.newClaims.length ? 'replace' : 'delete',
      candidates: [c],
      replacements: sim.newClaims,
      savingsPerHour: c.price - price,
      driftReasons,
    };
  }
  return undefined;
}

/**
 * A drifted node of a static NodePool is replaced one for one by a claim from the pool's template (Karpenter's
 * StaticDrift), not by what its pods need — unless the pool already has more nodes than its replicas (a
 * scale-down will remove one) or the replacement would pass `limits.nodes`.
 */
function staticDrift(pass: Pass, c: Candidate, driftReasons: Record<string, string>): Command | undefined {
  const pool = c.nodePool;
  const claims = pass.view.input.snapshot.nodeClaims.filter((x) => x.nodePool === pool.name);
  const alive = claims.filter((x) => x.deletionTimestamp === undefined).length;
  if (alive > pool.replicas!) {
    pass.reject('drift', [c], `static NodePool has ${alive} nodes for ${pool.replicas} replicas: the scale-down goes first`, {
      drift: driftReasons[c.nodeClaim.name],
    });
    return undefined;
  }
  if (pool.limits.nodes !== undefined && claims.length + 1 > pool.limits.nodes) {
    pass.reject('drift', [c], `a replacement would pass limits.nodes ${pool.limits.nodes} (${claims.length} claims)`, {
      drift: driftReasons[c.nodeClaim.name],
    });
    return undefined;
  }
  const replacement = staticNodeClaim(pool, pass.view.input.instanceTypes[pool.name] ?? [], pass.view.input.snapshot.daemonSets);
  if (typeof replacement === 'string') {
    pass.reject('drift', [c], replacement, { drift: driftReasons[c.nodeClaim.name] });
    return undefined;
  }
  return {
    method: 'drift',
    reason: 'drifted',
    action: 'replace',
    candidates: [c],
    replacements: [replacement],
    savingsPerHour: c.price - replacement.price,
    driftReasons,
  };
}

/** Underutilized candidates within budget, cost order, capped (Karpenter: 100). */
function withinBudget(pass: Pass, list: Candidate[], cap: number): Candidate[] {
  const budget = budgets(pass.view, 'Underutilized');
  const out: Candidate[] = [];
  for (const c of list) {
    if (out.length >= cap) break;
    if (!budget.take(c.nodePool.name)) {
      pass.reject('multi-node', [c], `budget: ${budget.why(c.nodePool.name)}`, { reason: 'underutilized' });
      continue;
    }
    out.push(c);
  }
  return out;
}

function toCommand(method: Command['method'], cs: Candidate[], o: Outcome & { ok: true }, scores: MoveScore[] = []): Command {
  return {
    method,
    reason: 'underutilized',
    action: o.action,
    candidates: cs,
    replacements: o.replacements,
    savingsPerHour: o.savingsPerHour,
    ...(o.replacements.length > 1 ? { multiReplacement: true } : {}),
    ...(scores.length ? { scores } : {}),
  };
}

/** Binary search over prefixes of ≥ 2 candidates for the largest valid command (docs/karpenter-reference.md §4.3). */
function searchPrefixes(pass: Pass, list: Candidate[], maxReplacements: (n: number) => number, label: string, split = false): Command | undefined {
  let lo = 1;
  let hi = list.length - 1;
  let best: Command | undefined;
  while (lo <= hi && !pass.expired('multi')) {
    const mid = (lo + hi) >> 1;
    const prefix = list.slice(0, mid + 1);
    const o = computeConsolidation(pass.view, prefix, {
      method: 'multi-node',
      maxReplacements: maxReplacements(prefix.length),
      spotToSpot: pass.spotToSpot,
      split,
    });
    const scored = o.ok ? pass.balanced(prefix, o.savingsPerHour) : undefined;
    if (o.ok && !scored?.why) {
      best = toCommand('multi-node', prefix, o, scored?.scores);
      lo = mid + 1;
      if (o.note) pass.note('multi-node', prefix, o.note);
    } else {
      pass.reject('multi-node', prefix, `${label}: ${o.ok ? scored!.why : o.why}`);
      hi = mid - 1;
    }
  }
  return best;
}

const budgeted = (pass: Pass) =>
  pass.budgetedUnderutilized((l) => withinBudget(pass, l, Math.min(MaxCommandCandidates, pass.view.input.options?.maxMultiNodeCandidates ?? 100)));

export function multiNode(pass: Pass): Command | undefined {
  const list = budgeted(pass);
  if (list.length < 2) return undefined;
  return searchPrefixes(pass, list, () => 1, 'multi-node');
}

/** Candidates interleaved across pools, each pool in cost order (docs/karpenter-reference.md §4.3 single-node). */
function interleave(list: Candidate[]): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of list) {
    const l = byPool.get(c.nodePool.name);
    if (l) l.push(c);
    else byPool.set(c.nodePool.name, [c]);
  }
  const queues = [...byPool.keys()].sort().map((k) => byPool.get(k)!);
  const out: Candidate[] = [];
  for (let i = 0; out.length < list.length; i++) for (const q of queues) if (i < q.length) out.push(q[i]);
  return out;
}

/** The search order from the candidate a timed-out search stopped at, wrapping around (all of them when it is gone). */
function resumeAt(order: Candidate[], name: string | undefined): Candidate[] {
  const k = name === undefined ? -1 : order.findIndex((c) => c.nodeClaim.name === name);
  return k <= 0 ? order : [...order.slice(k), ...order.slice(0, k)];
}

export function singleNode(pass: Pass): Command | undefined {
  const budget = budgets(pass.view, 'Underutilized');
  pass.singleNodeResumeAt = null;
  for (const c of resumeAt(interleave(pass.underutilized), pass.view.input.options?.singleNodeResumeAt)) {
    if (pass.expired('single')) {
      pass.singleNodeResumeAt ??= c.nodeClaim.name;
      pass.reject('single-node', [c], 'not evaluated: single-node timeout');
      continue;
    }
    if (budget.remaining(c.nodePool.name) <= 0) {
      pass.reject('single-node', [c], `budget: ${budget.why(c.nodePool.name)}`);
      continue;
    }
    const hopeless = pass.balancedHopeless(c);
    if (hopeless) {
      pass.reject('single-node', [c], hopeless);
      continue;
    }
    const o = computeConsolidation(pass.view, [c], { method: 'single-node', maxReplacements: 1, spotToSpot: pass.spotToSpot });
    const scored = o.ok ? pass.balanced([c], o.savingsPerHour) : undefined;
    if (o.ok && !scored!.why) return toCommand('single-node', [c], o, scored!.scores);
    pass.reject('single-node', [c], o.ok ? scored!.why! : o.why);
  }
  return undefined;
}

/** A split must save at least this share of the candidate's price: more nodes are more to disrupt later. */
const SplitMinSaving = 0.05;

/**
 * nodewright: one node → several cheaper ones (the scheduler's plan re-packed toward the cheapest fleet), when
 * the saving is real. Same budgets, PDB checks, pre-spin and validation as single-node consolidation.
 */
export function singleNodeSplit(pass: Pass): Command | undefined {
  const budget = budgets(pass.view, 'Underutilized');
  // Each try is a full simulation: the dearest nodes with at least two pods, a bounded number per pass.
  // Two nodes cost at least twice the pool's cheapest offering: a node dearer than that can be worth splitting.
  const cheapest = new Map<string, number>();
  const floor = (pool: string) => {
    let v = cheapest.get(pool);
    if (v === undefined) {
      v = Infinity;
      for (const it of pass.view.input.instanceTypes[pool] ?? []) for (const o of it.offerings) if (o.available && o.price < v) v = o.price;
      cheapest.set(pool, v);
    }
    return v;
  };
  const tries = pass.underutilized
    .filter((c) => c.pods.length >= 2 && c.price > 2 * floor(c.nodePool.name) * (1 + SplitMinSaving))
    .sort((a, b) => b.price - a.price || (a.nodeClaim.name < b.nodeClaim.name ? -1 : 1))
    .slice(0, MaxSplitTries);
  for (const c of tries) {
    if (pass.expired('single')) break;
    if (budget.remaining(c.nodePool.name) <= 0) continue;
    const o = computeConsolidation(pass.view, [c], { method: 'single-node', maxReplacements: MaxSplit, spotToSpot: pass.spotToSpot, split: true });
    if (!o.ok || o.action !== 'replace' || o.replacements.length < 2) continue;
    if (o.savingsPerHour < SplitMinSaving * c.price) {
      pass.note('single-node', [c], `a split into ${o.replacements.length} nodes would save only ${o.savingsPerHour.toFixed(4)}/h`);
      continue;
    }
    const scored = pass.balanced([c], o.savingsPerHour);
    if (scored.why) {
      pass.note('single-node', [c], `a split into ${o.replacements.length} nodes: ${scored.why}`);
      continue;
    }
    return { ...toCommand('single-node', [c], o, scored.scores), multiReplacement: true };
  }
  return undefined;
}

/** At most this many replacements for one node split, and this many split simulations per pass. */
const MaxSplit = 8;
/** Replacements of one command at most: each is a NodeClaim in the disrupt execution's input (Step Functions: 256 KB). */
const MaxReplacements = 24;
const MaxSplitTries = 10;

/**
 * nodewright: several nodes → several cheaper nodes (N → M), when Karpenter's one-node methods found nothing better:
 * the candidates' pods scheduled, then re-packed toward the cheapest fleet as `plan` does (the LP when loaded).
 */
export function multiReplacement(pass: Pass): Command | undefined {
  const list = budgeted(pass);
  if (list.length < 2) return undefined;
  // As a split: up to MaxSplit nodes per candidate; more nodes than it removes only for a saving worth it.
  const cmd = searchPrefixes(pass, list, (n) => Math.min(n * MaxSplit, MaxReplacements), 'multi-replacement', true);
  if (!cmd || cmd.replacements.length < 2) return undefined;
  const removed = cmd.candidates.reduce((s, c) => s + c.price, 0);
  if (cmd.replacements.length > cmd.candidates.length && cmd.savingsPerHour < SplitMinSaving * removed) {
    pass.note(
      'multi-node',
      cmd.candidates,
      `${cmd.candidates.length} nodes into ${cmd.replacements.length} would save only ${cmd.savingsPerHour.toFixed(4)}/h`,
    );
    return undefined;
  }
  return cmd;
}
