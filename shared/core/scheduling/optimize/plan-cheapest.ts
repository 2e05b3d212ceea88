/**
 * The one planner: what `nodewright plan`, the deployed provisioner and interruption replacements all run.
 * Karpenter's scheduling pass (solve.ts) decides which pods need new capacity; the new claims are then re-packed
 * toward the cheapest fleet (repack.ts). The LP solver is a port, asked for only when a group is large enough to
 * need it (the adapter loads HiGHS' WASM then, so a small round starts as fast as without it); without one, every
 * group is packed by the heuristic.
 */
import type { ResourceList } from '../../model/resources';
import type { LpSolver } from '../../ports/lp-solver';
import { solve } from '../solve';
import { poolUsage } from '../solve-run';
import type { Plan, PlannedNodeClaim, SchedulingInput, UnschedulablePod } from '../types';
import { repackNeeds, repackPlan, trimmedToLimits, type RepackOptions, type RepackReport } from './repack';

/** The LP solver, loaded on first call (undefined: none available, the heuristic packs every group). */
export type LpLoader = () => Promise<LpSolver | undefined>;

export interface CheapestPlan {
  plan: Plan;
  /** Per re-packed group: greedy and optimized $/h, the LP lower bound; absent when nothing was re-packable. */
  report?: RepackReport;
}

async function once(input: SchedulingInput, loadLp: LpLoader, options: RepackOptions, greedy: Plan): Promise<CheapestPlan> {
  const needs = repackNeeds(input, greedy);
  if (!needs.groups) return { plan: greedy };
  const lp = needs.lp ? await loadLp() : undefined;
  const { plan, report } = repackPlan(input, greedy, lp, options, needs);
  return { plan, report };
}

/** A pool's limits turned the pod away (Karpenter charges each new claim as the largest type it could launch as). */
const LIMITED = /the nodepool's remaining limits|limit on nodes reached/;
/**
 * Passes over the pods the limits turned away, at most. Each pass charges its new claims as their largest type
 * again, so a pass of one-per-node pods places about (room left ÷ largest type) of them: passes go on while they
 * place pods.
 */
const LIMIT_PASSES = 16;

/** Pods whose rules do not depend on where the earlier pass's claims are (zone-level rules do): they can be planned on their own. */
const standalone = (u: UnschedulablePod): boolean =>
  u.pod.topologySpreadConstraints.length === 0 &&
  (u.pod.affinity?.podAffinity?.required?.length ?? 0) === 0 &&
  (u.pod.affinity?.podAntiAffinity?.required ?? []).every((t) => t.topologyKey === 'kubernetes.io/hostname');

/** Each limited pool's usage: its nodes (or the usage given), plus the planned claims as the largest type each can now launch as. */
function usageWith(input: SchedulingInput, claims: readonly PlannedNodeClaim[]): Record<string, ResourceList> {
  const out: Record<string, ResourceList> = {};
  for (const p of input.nodePools) {
    const keys = Object.keys(p.limits);
    if (keys.length === 0) continue;
    const usage = poolUsage(input, p.name);
    for (const c of claims) {
      if (c.nodePool !== p.name) continue;
      for (const k of keys) if (k !== 'nodes') usage[k] = (usage[k] ?? 0) + Math.max(0, ...c.instanceTypes.map((t) => t.capacity[k] ?? 0));
      usage.nodes = (usage.nodes ?? 0) + 1;
    }
    out[p.name] = usage;
  }
  return out;
}

/** `greedy`: Karpenter's pass already run on this input (`plan` prints it), else it is run here. */
export async function planCheapest(input: SchedulingInput, loadLp: LpLoader, options: RepackOptions = {}, greedy = solve(input)): Promise<CheapestPlan> {
  let { plan, report } = await once(input, loadLp, options, greedy);
  let passes = 0;
  // Beyond Karpenter: the greedy pass charged each new claim as the largest type it could launch as, and re-packing
  // trimmed the claims to what they need, so pods the limits turned away may fit now: planned again, charged as
  // the re-packed claims can launch, until nothing more fits.
  for (let pass = 0; pass < LIMIT_PASSES; pass++) {
    const again = plan.unschedulable.filter((u) => LIMITED.test(u.reason) && standalone(u));
    if (again.length === 0) break;
    // The claims so far may launch only as types no larger than the one each is priced at: charged as that.
    plan = { ...plan, nodeClaims: trimmedToLimits(input.nodePools, plan.nodeClaims) };
    const placed = new Map(plan.existingPlacements.map((e) => [e.node, e.pods]));
    const next: SchedulingInput = {
      ...input,
      pods: again.map((u) => u.pod),
      existingNodes: input.existingNodes.map((n) => (placed.has(n.name) ? { ...n, pods: [...n.pods, ...placed.get(n.name)!] } : n)),
      poolUsage: usageWith(input, plan.nodeClaims),
      options: { ...input.options, existingModel: undefined },
    };
    const more = await once(next, loadLp, options, solve(next));
    if (more.plan.nodeClaims.length === 0 && more.plan.existingPlacements.length === 0) break;
    const retried = new Set(again.map((u) => u.pod.uid));
    plan = {
      nodeClaims: [...plan.nodeClaims, ...more.plan.nodeClaims],
      existingPlacements: [...plan.existingPlacements, ...more.plan.existingPlacements],
      unschedulable: [...plan.unschedulable.filter((u) => !retried.has(u.pod.uid)), ...more.plan.unschedulable],
      ignored: plan.ignored,
    };
    if (more.report) report = { groups: [...(report?.groups ?? []), ...more.report.groups] };
    passes++;
  }
  if (passes > 0) {
    // The passes' claims re-packed together, as one plan would have packed them (kept only when cheaper and charged no more).
    const joint = await once(input, loadLp, options, plan);
    plan = joint.plan;
    if (joint.report) report = joint.report;
  }
  return report ? { plan, report } : { plan };
}
