/**
 * Which new claims the re-packing may pack again, and under what extra rules (repack.ts).
 *
 * A pod's placement constraints decide how far it may move:
 * - none (resources, requirements, tolerations only): anywhere among the group's new nodes;
 * - zone-level (topology spread or pod (anti)affinity on the zone, zone requirements, or selected by any pod's
 *   zone-level rule): within the zone its greedy claim is pinned to. Zone counts stay what the Karpenter-faithful
 *   pass made them, so every spread skew, zone affinity and zone anti-affinity it satisfied stays satisfied;
 * - hostname-level (topology spread or pod anti-affinity on the hostname): at most one per new node, when every
 *   pod the rule selects in the group is of the same kind (same labels, requests and rules). Such a pod then
 *   finds no pod its rule selects on its node: its anti-affinity holds, and its spread's skew is at most 1
 *   whatever the other nodes hold. For a spread, no other node may hold more than maxSkew selected pods (a new
 *   node without one may become the domain with the fewest);
 * - anything else (hostname pod affinity, host ports, volumes, other topology keys): stays on its greedy claim,
 *   and so does every pod on the same claim.
 * A pod no zone-level rule selects may change zone. Groups are the claims of one NodePool.
 */
import type { LabelSelector, Pod, PodAffinityTerm, Taint } from '../../model/kube';
import type { NodePool } from '../../model/karpenter';
import { Label } from '../../model/labels';
import { newPodState, type PodState, relax } from '../pod-data';
import { Requirements } from '../requirements';
import { OfferingKeys, typeMatches } from '../template';
import { compileSelector } from '../selectors';
import type { Plan, PlannedNodeClaim, SchedulingInput } from '../types';

/** How far a pod may move: not at all, or with its zone kept, and/or at most one of its kind per node. */
interface Mobility {
  fixed: boolean;
  zone: boolean;
  host: boolean;
}

/** A hostname-level rule of a pod: whom it selects, and for a spread its maxSkew (pods on other nodes count). */
interface HostRule {
  selects: (p: Pod) => boolean;
  maxSkew?: number;
}

export interface Group {
  pool: NodePool;
  claims: PlannedNodeClaim[];
  pods: Pod[];
  /** The zone a pod must stay in (its greedy claim's), or null when it may go to any zone. */
  zoneOf: Map<Pod, string | null>;
  /** Pods of which at most one may share a new node (hostname spread / anti-affinity). */
  onePerNode: Set<Pod>;
  /** Each pod's scheduling state as placed by the greedy pass (relaxations applied). */
  states: Map<Pod, PodState>;
}

const ZONE_KEYS: ReadonlySet<string> = new Set([Label.zone, Label.zoneId]);

function termsOf(p: Pod): { affinity: PodAffinityTerm[]; anti: PodAffinityTerm[] } {
  const a = p.affinity;
  return {
    affinity: [...(a?.podAffinity?.required ?? []), ...(a?.podAffinity?.preferred ?? []).map((w) => w.podAffinityTerm)],
    anti: [...(a?.podAntiAffinity?.required ?? []), ...(a?.podAntiAffinity?.preferred ?? []).map((w) => w.podAffinityTerm)],
  };
}

/**
 * The pod's scheduling state as the greedy pass placed it on `claim`: Karpenter relaxes a pod (next required node
 * term, then preferences) until it schedules, so the first state in that order the claim satisfies — its
 * requirements and every instance type it lists. Undefined when none does.
 */
function placedState(p: Pod, claim: PlannedNodeClaim, claimReqs: Requirements, ignorePrefs: boolean, poolTaints: readonly Taint[][]): PodState | undefined {
  const s = newPodState(p, 0, [], ignorePrefs);
  for (;;) {
    if (claimReqs.compatible(s.requirements) && claim.instanceTypes.every((it) => typeMatches(it, s.requirements)) && offeringsHeld(claimReqs, s.requirements))
      return s;
    if (relax(s, poolTaints) === undefined) return undefined;
  }
}

/** The pod's zone / capacity-type requirements hold wherever the claim may launch (the claim lists values within them). */
function offeringsHeld(claimReqs: Requirements, pod: Requirements): boolean {
  for (const key of OfferingKeys) {
    const want = pod.get(key);
    if (!want) continue;
    const have = claimReqs.get(key);
    if (!have || have.complement || ![...have.values].every((v) => want.has(v))) return false;
  }
  return true;
}

/** How far the re-packing may move a pod placed with state `s` (see the file comment). */
function mobility(p: Pod, s: PodState): Mobility {
  const m = ruleMobility(p);
  if (!m.fixed && (s.requirements.has(Label.zone) || s.requirements.has(Label.zoneId))) m.zone = true;
  return m;
}

/**
 * Mobility from the pod's own rules (host ports, volumes, pod (anti-)affinity, spreads), before its requirements.
 * Every pod of a plan comes through here, so the terms are walked in place (termsOf's order), not copied.
 */
function ruleMobility(p: Pod): Mobility {
  const m: Mobility = { fixed: false, zone: false, host: false };
  if (p.hostPorts.length > 0 || p.volumeClaims.length > 0) return fixedFrom(m);
  const a = p.affinity;
  const spreads = p.topologySpreadConstraints;
  if (!a?.podAffinity && !a?.podAntiAffinity && spreads.length === 0) return m;
  const affinity = a?.podAffinity;
  if (affinity) {
    for (const t of affinity.required ?? NO_TERMS) if (!zoneAffinity(m, t.topologyKey)) return fixedFrom(m);
    for (const w of affinity.preferred ?? NO_TERMS) if (!zoneAffinity(m, w.podAffinityTerm.topologyKey)) return fixedFrom(m);
  }
  const anti = a?.podAntiAffinity;
  if (anti) {
    for (const t of anti.required ?? NO_TERMS) if (!spreadOrAnti(m, t.topologyKey)) return fixedFrom(m);
    for (const w of anti.preferred ?? NO_TERMS) if (!spreadOrAnti(m, w.podAffinityTerm.topologyKey)) return fixedFrom(m);
  }
  for (let i = 0; i < spreads.length; i++) if (!spreadOrAnti(m, spreads[i].topologyKey)) return fixedFrom(m);
  return m;
}

const fixedFrom = (m: Mobility): Mobility => ({ ...m, fixed: true });
const NO_TERMS: never[] = [];

/** A pod affinity term on a zone key keeps the pod in its zone; any other key fixes it (false). */
function zoneAffinity(m: Mobility, key: string): boolean {
  if (!ZONE_KEYS.has(key)) return false;
  m.zone = true;
  return true;
}

/** An anti-affinity term or spread on the hostname or a zone key marks the mobility; any other key fixes it (false). */
function spreadOrAnti(m: Mobility, key: string): boolean {
  if (key === Label.hostname) m.host = true;
  else if (ZONE_KEYS.has(key)) m.zone = true;
  else return false;
  return true;
}

function selectorOf(sel: LabelSelector | undefined, namespaces: string[] | undefined, owner: Pod, anyNamespace: boolean): (p: Pod) => boolean {
  const m = compileSelector(sel);
  const ns = new Set(namespaces?.length ? namespaces : [owner.namespace]);
  return (p) => (anyNamespace || ns.has(p.namespace)) && m(p.labels);
}

function hostRules(p: Pod): HostRule[] {
  const out: HostRule[] = [];
  for (const t of termsOf(p).anti) {
    if (t.topologyKey === Label.hostname) out.push({ selects: selectorOf(t.labelSelector, t.namespaces, p, t.namespaceSelector !== undefined) });
  }
  for (const c of p.topologySpreadConstraints) {
    if (c.topologyKey === Label.hostname) out.push({ selects: selectorOf(c.labelSelector, undefined, p, false), maxSkew: c.maxSkew });
  }
  return out;
}

/**
 * Pods with the same key are interchangeable: same namespace, labels, requests and scheduling constraints. A
 * hostname rule may select pods of one key only, so "one per node" is a cap on one kind of the re-packing.
 */
export function ruleKey(p: Pod): string {
  return JSON.stringify([p.namespace, p.labels, p.requests, p.nodeSelector, p.affinity ?? null, p.topologySpreadConstraints, p.tolerations]);
}

/**
 * The groups of new claims to re-pack: the qualifying claims of each NodePool. A group whose hostname rules
 * cannot be kept as "one per node" (a rule selecting pods of another kind, or a spread with more than maxSkew
 * selected pods on another node) is left out.
 */
export function groupsOf(input: SchedulingInput, plan: Plan, ignorePrefs: boolean): Group[] {
  const pools = new Map(input.nodePools.map((p) => [p.name, p]));
  // Cheap checks first (each pod's own rules, then the hostname rules of each pool's candidates): most inputs
  // that cannot be re-packed stop here, before any pod's placed state is worked out.
  const host = new Set<Pod>();
  const byPool = new Map<string, PlannedNodeClaim[]>();
  for (const c of plan.nodeClaims) {
    if (!pools.has(c.nodePool) || c.pods.length === 0) continue;
    const ms = c.pods.map(ruleMobility);
    if (ms.some((m) => m.fixed)) continue;
    c.pods.forEach((p, i) => {
      if (ms[i].host) host.add(p);
    });
    let list = byPool.get(c.nodePool);
    if (!list) byPool.set(c.nodePool, (list = []));
    list.push(c);
  }
  const poolTaints = input.nodePools.map((p) => p.template.taints);
  let zoneSelected: ((p: Pod) => boolean) | undefined;
  const out: Group[] = [];
  for (const [name, claims] of byPool) {
    const pool = pools.get(name)!;
    const candidate = { pool, claims, pods: claims.flatMap((c) => c.pods) };
    if (candidate.pods.length < 2 || !hostRulesHold(input, plan, candidate, host)) continue;
    zoneSelected ??= zoneRuleTargets(input);
    const g: Group = { pool, claims: [], pods: [], zoneOf: new Map(), onePerNode: new Set(), states: new Map() };
    for (const c of claims) {
      const claimReqs = Requirements.fromNodeSelector(c.requirements);
      const states = c.pods.map((p) => placedState(p, c, claimReqs, ignorePrefs, poolTaints));
      if (states.some((st) => st === undefined)) continue;
      // Pods with zone-level rules, and pods such a rule counts, keep their zone: only a claim pinned to one zone
      // can be re-packed with them.
      const keeps = c.pods.map((p, i) => mobility(p, states[i]!).zone || zoneSelected!(p));
      if (c.zone === null && keeps.some(Boolean)) continue;
      g.claims.push(c);
      c.pods.forEach((p, i) => {
        g.pods.push(p);
        g.zoneOf.set(p, keeps[i] ? c.zone : null);
        g.states.set(p, states[i]!);
      });
    }
    // One pod on one claim is already its cheapest fitting type; claims left out are "elsewhere" for the rules.
    if (g.pods.length < 2 || (g.claims.length < claims.length && !hostRulesHold(input, plan, g, host))) continue;
    for (const p of g.pods) if (host.has(p)) g.onePerNode.add(p);
    out.push(g);
  }
  return out;
}

/** Whether a zone-level rule of any pod (pending or running) selects this pod: its zone counts for that rule. */
function zoneRuleTargets(input: SchedulingInput): (p: Pod) => boolean {
  const rules = new Map<string, (p: Pod) => boolean>();
  const add = (owner: Pod, sel: LabelSelector | undefined, namespaces: string[] | undefined, anyNamespace: boolean) => {
    const key = JSON.stringify([sel ?? null, namespaces?.length ? namespaces : [owner.namespace], anyNamespace]);
    if (!rules.has(key)) rules.set(key, selectorOf(sel, namespaces, owner, anyNamespace));
  };
  const term = (p: Pod, t: PodAffinityTerm) => {
    if (ZONE_KEYS.has(t.topologyKey)) add(p, t.labelSelector, t.namespaces, t.namespaceSelector !== undefined);
  };
  // Every pending and bound pod, walked in place (no copy of the cluster's pods): this runs for each simulation of a
  // consolidation pass.
  const visit = (p: Pod) => {
    const { affinity, anti } = termsOf(p);
    for (const t of affinity) term(p, t);
    for (const t of anti) term(p, t);
    for (const c of p.topologySpreadConstraints) if (ZONE_KEYS.has(c.topologyKey)) add(p, c.labelSelector, undefined, false);
  };
  for (const p of input.pods) visit(p);
  for (const n of input.existingNodes) for (const p of n.pods) visit(p);
  const list = [...rules.values()];
  return (p) => list.some((r) => r(p));
}

/** Whether every hostname rule of the group's pods can be kept as "one per node" (see groupsOf). */
function hostRulesHold(input: SchedulingInput, plan: Plan, g: Pick<Group, 'claims' | 'pods'>, host: ReadonlySet<Pod>): boolean {
  const bound = g.pods.filter((p) => host.has(p));
  if (bound.length === 0) return true;
  // The pods of every node outside the group, node by node.
  const inGroup = new Set(g.claims);
  const placed = new Map(plan.existingPlacements.map((e) => [e.node, e.pods]));
  const elsewhere: Pod[][] = [
    ...input.existingNodes.map((n) => [...n.pods, ...(placed.get(n.name) ?? [])]),
    ...plan.nodeClaims.filter((c) => !inGroup.has(c)).map((c) => c.pods),
  ];
  const checked = new Map<string, boolean>();
  for (const p of bound) {
    const key = ruleKey(p);
    let ok = checked.get(key);
    if (ok === undefined) {
      const rules = hostRules(p);
      ok = rules.every(
        (r) =>
          g.pods.every((q) => !r.selects(q) || ruleKey(q) === key) &&
          (r.maxSkew === undefined || elsewhere.every((pods) => pods.filter(r.selects).length <= r.maxSkew!)),
      );
      checked.set(key, ok);
    }
    if (!ok) return false;
  }
  return true;
}
