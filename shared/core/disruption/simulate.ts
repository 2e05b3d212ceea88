/**
 * computeConsolidation (docs/karpenter-reference.md §4.3): reschedule the candidates' pods onto the rest of the cluster with
 * the scheduler (candidates excluded, pending pods included so they keep their room), then decide delete
 * (0 new nodes) or replace (new nodes strictly cheaper than the candidates).
 */
import type { InstanceType } from '../instance-types/types';
import type { NodePool } from '../model/karpenter';
import { podKey, type Pod } from '../model/kube';
import { CapacityType, type CapacityTypeValue, Label } from '../model/labels';
import { schedulingInputFromSnapshot } from '../provisioning/from-snapshot';
import { repackPlan } from '../scheduling/optimize/repack';
import { ExistingModel } from '../scheduling/existing-model';
import { solve } from '../scheduling/solve';
import type { PlannedNodeClaim, SchedulingInput } from '../scheduling/types';
import { allowedDisruptions } from './budgets';
import { consolidationCheck, nodeCheck, podCheck, toCandidate, type ClusterView, type NodeView } from './candidates';
import { isReschedulable } from './pods';
import { isStatic } from '../scheduling/static-claim';
import type { Candidate } from './types';

const bases = new WeakMap<ClusterView, SchedulingInput>();
/** The scheduling input of the pass (pending pods, existing nodes), built once per ClusterView. */
export function schedulingBase(view: ClusterView): SchedulingInput {
  let b = bases.get(view);
  if (!b) {
    b = schedulingInputFromSnapshot(view.input.snapshot, view.input.instanceTypes);
    // One model of the existing nodes for every simulation of the pass: each leaves its candidates out.
    b = { ...b, options: { ...b.options, existingModel: new ExistingModel() } };
    bases.set(view, b);
  }
  return b;
}

const emptying = new WeakMap<ClusterView, ReadonlySet<string>>();
/**
 * Beyond Karpenter: the empty nodes emptiness will remove without an eviction once their consolidateAfter has
 * passed (a scale-down just emptied them; nothing keeps them: no do-not-disrupt, an Empty budget left). They are
 * not destinations for consolidation's moves: moving a node's pods onto one to delete that node saves what deleting
 * the empty node saves a minute later, for the pods' evictions (with PodDeletionCostManagement, a scale-down empties
 * the nodes consolidation ranks first, and the move would then delete the others).
 */
function emptyingNodes(view: ClusterView): ReadonlySet<string> {
  let set = emptying.get(view);
  if (set) return set;
  // A budget that allows no Empty disruption at all now keeps them (one used up by nodes being disrupted frees up).
  const kept = (pool: NodePool) =>
    allowedDisruptions(pool, 'Empty', { total: view.counts.get(pool.name)?.total ?? 0, disrupting: 0 }, view.input.now).allowed <= 0;
  // The checks emptiness makes of a candidate (pass.ts), but not the timing; a PDB allowing 0 now lifts later.
  const removable = (v: NodeView): boolean => {
    if (!v.pool || v.pool.disruption.consolidateAfter === null || isStatic(v.pool) || v.pods.some(isReschedulable)) return false;
    if (nodeCheck(view, v) || consolidationCheck(v) || kept(v.pool)) return false;
    const block = podCheck(view, v, false);
    if (block && (block.deadlock || block.kind !== 'pdb')) return false;
    return typeof toCandidate(view, v) !== 'string';
  };
  set = new Set(view.views.filter(removable).map((v) => v.node.name));
  emptying.set(view, set);
  return set;
}

/** The pass's uninitialized nodes (no candidate's pods may land there), once per pass. */
const uninitialized = new WeakMap<SchedulingInput, Set<string>>();

export interface Simulation {
  /** Why a candidate pod cannot move, or undefined. */
  failure?: string;
  /** New claims holding at least one candidate pod (claims only for pending pods are the provisioner's). */
  newClaims: PlannedNodeClaim[];
}

/**
 * Schedules the candidates' pods with the candidates removed. `split`: then re-pack the new claims toward the
 * cheapest fleet with the planner's re-packing (the LP when the input carries one, else the heuristic), so nodes
 * can be replaced by several cheaper ones instead of the one that holds everything.
 */
export function simulate(view: ClusterView, candidates: Candidate[], options: { split?: boolean } = {}): Simulation {
  const b = schedulingBase(view);
  const moving: Pod[] = candidates.flatMap((c) => c.pods.map((p) => ({ ...p, nodeName: undefined, phase: 'Pending' as const })));
  const movingUids = new Set(moving.map((p) => p.uid));
  const excluded = new Set([...emptyingNodes(view), ...candidates.map((c) => c.node.name)]);
  const input = { ...b, pods: [...b.pods, ...moving], options: { ...b.options, excludeNodes: excluded } };
  const greedy = solve(input);
  const plan = options.split ? repackPlan(input, greedy, view.input.lp).plan : greedy;
  const newClaims = plan.nodeClaims.filter((c) => c.pods.some((p) => movingUids.has(p.uid)));
  const failed = [...plan.unschedulable, ...plan.ignored].find((u) => movingUids.has(u.pod.uid));
  if (failed) return { failure: `pods don't fit elsewhere: pod ${podKey(failed.pod)}: ${failed.reason}`, newClaims };
  let uninit = uninitialized.get(b);
  if (!uninit) uninitialized.set(b, (uninit = new Set(b.existingNodes.filter((n) => !n.initialized).map((n) => n.name))));
  const onUninit = plan.existingPlacements.find((e) => uninit.has(e.node) && e.pods.some((p) => movingUids.has(p.uid)));
  if (onUninit) return { failure: `pods would land on uninitialized node ${onUninit.node}`, newClaims };
  return { newClaims };
}

function zonesOf(claim: PlannedNodeClaim): Set<string> | undefined {
  const r = claim.requirements.find((x) => x.key === Label.zone && x.operator === 'In');
  return r ? new Set(r.values ?? []) : undefined;
}

/** The dearest available offering of `ct` the claim could launch for this type (docs/karpenter-reference.md §4.3 step 4). */
export function worstPrice(it: InstanceType, claim: PlannedNodeClaim, ct: CapacityTypeValue): number {
  const zones = zonesOf(claim);
  let worst = -Infinity;
  for (const o of it.offerings) if (o.available && o.capacityType === ct && (!zones || zones.has(o.zone)) && o.price > worst) worst = o.price;
  return worst === -Infinity ? Infinity : worst;
}

function cheapestPrice(it: InstanceType, claim: PlannedNodeClaim, ct: CapacityTypeValue): number {
  const zones = zonesOf(claim);
  let best = Infinity;
  for (const o of it.offerings) if (o.available && o.capacityType === ct && (!zones || zones.has(o.zone)) && o.price < best) best = o.price;
  return best;
}

/** The claim narrowed to `types` (cheapest first) and pinned to one capacity type. */
export function restrict(claim: PlannedNodeClaim, types: InstanceType[], ct: CapacityTypeValue): PlannedNodeClaim {
  const sorted = [...types].sort((a, b) => cheapestPrice(a, claim, ct) - cheapestPrice(b, claim, ct) || (a.name < b.name ? -1 : 1));
  const names = sorted.map((t) => t.name);
  const requirements = claim.requirements.map((r) => {
    if (r.key === Label.instanceType) return { ...r, values: names };
    if (r.key === Label.capacityType) return { key: r.key, operator: 'In' as const, values: [ct] };
    return r;
  });
  if (!requirements.some((r) => r.key === Label.capacityType)) requirements.push({ key: Label.capacityType, operator: 'In', values: [ct] });
  const labels: Record<string, string> = { ...claim.labels, [Label.capacityType]: ct };
  if (names.length === 1) labels[Label.instanceType] = names[0];
  else delete labels[Label.instanceType];
  return { ...claim, instanceTypes: sorted, requirements, capacityType: ct, labels, price: sorted.length ? cheapestPrice(sorted[0], claim, ct) : claim.price };
}

/** Capacity types the claim may launch with. */
function allowedCapacityTypes(claim: PlannedNodeClaim): Set<CapacityTypeValue> {
  const r = claim.requirements.find((x) => x.key === Label.capacityType && x.operator === 'In');
  const offered = new Set<CapacityTypeValue>();
  for (const it of claim.instanceTypes) for (const o of it.offerings) if (o.available) offered.add(o.capacityType);
  return new Set([...offered].filter((c) => !r || (r.values ?? []).includes(c)));
}

/** The capacity type a replacement launches with: reserved, else spot when allowed (pinned), else on-demand. */
export function launchCapacityType(claim: PlannedNodeClaim): CapacityTypeValue {
  const allowed = allowedCapacityTypes(claim);
  if (claim.capacityType === CapacityType.reserved && allowed.has(CapacityType.reserved)) return CapacityType.reserved;
  if (allowed.has(CapacityType.spot)) return CapacityType.spot;
  return CapacityType.onDemand;
}
