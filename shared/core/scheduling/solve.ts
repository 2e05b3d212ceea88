/**
 * The scheduler (docs/karpenter-reference.md §2.2–2.3): pods in Karpenter's order go to existing nodes, then to claims opened
 * in this run (fewest pods first), then to a new claim from the NodePools in weight order. On failure one
 * preference is relaxed at a time; a pod that still fails goes to the back of the queue. The run's state and
 * its preparation are in solve-run.ts.
 */
import { Label } from '../model/labels';
import type { Pod } from '../model/kube';
import type { ResourceList } from '../model/resources';
import { finalizeClaim, newFinalizeMemo } from './finalize';
import { InProgressClaim } from './nodeclaim';
import { compareForQueue, relax, type PodState } from './pod-data';
import { Requirement, type Requirements } from './requirements';
import { requirementsKey, tolerationsKey } from './existing-node';
import { isStatic } from './static-claim';
import type { TypeOption } from './template';
import type { TopologyGroup } from './topology';
import type { Plan, SchedulingInput, UnschedulablePod } from './types';
import { prepare, type HostIndex, type SolveRun } from './solve-run';
import { pinned } from './topology-domains';

export function solve(input: SchedulingInput): Plan {
  const maxTypes = input.options?.maxInstanceTypes ?? 60;
  const { run, states, ignored } = prepare(input);
  try {
    const unschedulable = schedule(run, states);
    const memo = newFinalizeMemo();
    return {
      nodeClaims: run.claims.sort((a, b) => a.index - b.index).map((c) => finalizeClaim(c, maxTypes, memo)),
      existingPlacements: run.existing.filter((n) => n.placed.length > 0).map((n) => ({ node: n.node.name, pods: n.placed.map((s) => s.pod) })),
      unschedulable,
      ignored,
    };
  } finally {
    // Shared node models (SchedulingOptions.existingModel) go back to their state before this solve.
    if (input.options?.existingModel) for (const n of run.existing) n.resetPlacements();
  }
}

/**
 * The queue: Karpenter's order; stop once a pod comes round with the queue unchanged since its last push.
 * Returns the pods left unschedulable, with the last reason.
 */
function schedule(run: SolveRun, states: PodState[]): UnschedulablePod[] {
  const queue = [...states].sort(compareForQueue);
  let head = 0;
  const lastLen = new Map<string, number>();
  const errors = new Map<string, { pod: Pod; reason: string }>();
  const poolTaints = run.templates.map((t) => t.taints);
  while (head < queue.length) {
    const s = queue[head];
    if (lastLen.get(s.pod.uid) === queue.length - head) break;
    head++;
    let work = s;
    let err = tryAdd(run, work);
    if (err !== undefined) {
      work = cloneState(s);
      while (err !== undefined && relax(work, poolTaints)) err = tryAdd(run, work);
    }
    if (err === undefined) {
      errors.delete(s.pod.uid);
      continue;
    }
    errors.set(s.pod.uid, { pod: s.pod, reason: err });
    queue.push(s);
    lastLen.set(s.pod.uid, queue.length - head);
  }
  return [...errors.values()].sort((a, b) => (a.pod.uid < b.pod.uid ? -1 : 1));
}

/** Places the pod on an existing node, else on a claim of this run, else on a new claim: undefined, or why not. */
function tryAdd(run: SolveRun, s: PodState): string | undefined {
  const onExisting = placeOnExisting(run, s);
  if (onExisting === true) return undefined;
  if (placeOnClaim(run, s)) return undefined;
  return openClaim(run, s, onExisting);
}

/**
 * The skip links for the pod's shape: per request vector and, for a pod whose every misfit is permanent within the solve
 * by its shape alone (no host ports, volumes or volume topology: those depend on the pod's own ports and claims), per
 * tolerations and requirements too — then any misfit skips the node for the pods of that shape, else only a lack of room.
 */
function skipLinks(run: SolveRun, s: PodState): { links: Int32Array; anyMisfit: boolean } {
  const anyMisfit = s.pod.hostPorts.length === 0 && s.volumes.length === 0 && s.volumeAlternatives.length === 0;
  const key = anyMisfit ? `${tolerationsKey(s)}|${requirementsKey(s.requirements)}` : '';
  let byShape = run.existingSkip.get(s.reqVec);
  if (!byShape) run.existingSkip.set(s.reqVec, (byShape = new Map()));
  let links = byShape.get(key);
  if (!links) byShape.set(key, (links = Int32Array.from({ length: run.existing.length + 1 }, (_, k) => k)));
  return { links, anyMisfit };
}

/** The first node from `k` not known to lack room (`skip`'s links, shortened on the way: path halving). */
function nextWithRoom(skip: Int32Array, k: number): number {
  while (skip[k] !== k) {
    skip[k] = skip[skip[k]];
    k = skip[k];
  }
  return k;
}

/** True when the pod went to an existing node; else the first node's reason (undefined without existing nodes). */
function placeOnExisting(run: SolveRun, s: PodState): true | string | undefined {
  const { existing, topology } = run;
  if (existing.length === 0) return undefined;
  // Skip the scan of existing nodes when no node has room for the pod (the bound only ever shrinks and is
  // tightened after every full scan).
  for (const i of s.reqNz) if (s.reqVec[i] > run.existingRoom[i]) return 'no existing node has room';
  // Nodes that could not take a pod of this shape still cannot (first fit: identical pods come one after another and
  // would otherwise each walk past every node the earlier ones filled, or every node of another pool). The first
  // node's error stays first.
  const skip = skipLinks(run, s);
  const from = nextWithRoom(skip.links, 0);
  let firstError = from > 0 ? existing[0].misfit(s) : undefined;
  for (let k = from; k < existing.length; k = nextWithRoom(skip.links, k + 1)) {
    const n = existing[k];
    const why = n.misfit(s);
    if (why !== undefined) {
      firstError ??= why;
      if (skip.anyMisfit || n.lacksRoom(s) !== undefined) skip.links[k] = k + 1;
      continue;
    }
    const r = topology.hasGroups ? topology.addRequirements(s, n.requirements) : n.requirements;
    if (typeof r === 'string') {
      firstError ??= r;
      continue;
    }
    n.commit(s);
    if (topology.hasGroups) topology.record(s, r, n.placement);
    return true;
  }
  if (from < existing.length) {
    // No node took it: tighten the bound on the room left (over every node, those skipped too).
    const seen = new Float64Array(run.dims.size);
    for (const n of existing) for (let i = 0; i < seen.length; i++) if (n.remaining[i] > seen[i]) seen[i] = n.remaining[i];
    run.existingRoom = seen;
  }
  return firstError;
}

/** Places the pod on a claim opened earlier in this run (fewest pods first); false when none takes it. */
function placeOnClaim(run: SolveRun, s: PodState): boolean {
  const { claims, topology } = run;
  const excluded = affinityExcludes(run, s);
  for (const c of claimCandidates(run, s)) {
    if (excluded?.(c)) continue;
    const plan = c.canAdd(s, topology);
    if (typeof plan === 'string') continue;
    c.commit(s, plan);
    if (topology.hasGroups) {
      topology.record(s, plan.requirements, { matches: (f) => plan.requirements.compatible(f), taints: c.template.taints });
      unblock(run, s, c);
    }
    moveRight(claims, c.pos);
    return true;
  }
  return false;
}

/**
 * The claims the pod's zone-level (or other non-hostname) pod affinity rules out before anything else: pinned
 * to a domain no selected pod runs in, while one runs elsewhere or the pod does not select itself
 * (TopologyGroup.rulesOutEmptyDomains) — the first answer canAdd would give (Topology.quickReject), found
 * without the call. Affinity pods scan every claim, and
 * most are pinned elsewhere.
 */
function affinityExcludes(run: SolveRun, s: PodState): ((c: InProgressClaim) => boolean) | undefined {
  if (!run.topology.hasGroups) return undefined;
  const groups = run.topology.ownedGroups(s).affinity.filter((g) => g.rulesOutEmptyDomains(s.pod));
  if (groups.length === 0) return undefined;
  return (c) =>
    groups.some((g) => {
      const d = pinned(c.requirements, g.key);
      return d !== undefined && !(g.count(d) > 0);
    });
}

/** Opens a claim for the pod from the first NodePool (by weight) that can take it: undefined, or why none could. */
function openClaim(run: SolveRun, s: PodState, existingError: string | undefined): string | undefined {
  const { templates, topology } = run;
  const reasons: string[] = [];
  for (const t of templates) {
    let options = t.options;
    const lim = run.limits.get(t.pool.name);
    if (lim) {
      if (lim.remaining.nodes !== undefined && lim.remaining.nodes <= 0) {
        reasons.push(`nodepool "${t.pool.name}": limit on nodes reached`);
        continue;
      }
      options = options.filter((o) => Object.keys(lim.remaining).every((k) => k === 'nodes' || (o.it.capacity[k] ?? 0) <= lim.remaining[k]));
      if (options.length === 0) {
        reasons.push(`nodepool "${t.pool.name}": all instance types exceed the nodepool's remaining limits`);
        continue;
      }
    }
    const hostname = `hostname-placeholder-${String(run.hostnameSeq).padStart(4, '0')}`;
    topology.registerDomain(Label.hostname, hostname);
    const reqs: Requirements = t.requirements.with(Requirement.in(Label.hostname, [hostname]));
    const claim = new InProgressClaim(t, hostname, run.hostnameSeq, reqs, options, run.minValuesPolicy, run.dims);
    const plan = claim.canAdd(s, topology);
    if (typeof plan === 'string') {
      // A type large enough was left out by the limits: say so (the limits, not the catalog, turned the pod away).
      const cut = t.options.length - options.length;
      const limited = cut > 0 && plan.startsWith('no instance type has enough') && cutTypeFits(t.options, options, s);
      reasons.push(
        `nodepool "${t.pool.name}": ${plan}${limited ? ` within the nodepool's remaining limits (${cut} of ${t.options.length} types exceed them)` : ''}`,
      );
      continue;
    }
    run.hostnameSeq++;
    claim.commit(s, plan);
    if (topology.hasGroups) {
      topology.record(s, plan.requirements, { matches: (f) => plan.requirements.compatible(f), taints: t.taints });
      unblock(run, s, claim);
    }
    if (lim) subtractMax(lim.remaining, claim.options);
    addClaim(run, claim);
    return undefined;
  }
  if (templates.length === 0) reasons.push(noTemplateReason(run));
  if (existingError && reasons.length === 0) reasons.push(existingError);
  return reasons.join('; ');
}

/** Whether a type the limits left out could have held the pod's requests (then the limits, not the catalog, refused it). */
function cutTypeFits(all: readonly TypeOption[], kept: readonly TypeOption[], s: PodState): boolean {
  const left = new Set(kept);
  return all.some((o) => !left.has(o) && s.reqNz.every((i) => o.eff[i] >= s.reqVec[i]));
}

/** Why no NodePool could open a claim at all. */
function noTemplateReason(run: SolveRun): string {
  const { input, pools } = run;
  const statics = input.nodePools.filter(isStatic).length;
  return pools.length === 0
    ? statics > 0 && statics === input.nodePools.length
      ? 'only static NodePools exist (spec.replicas): they are not used for pending pods'
      : 'no NodePool is ready'
    : `no instance types available for nodepool(s) ${run.emptyPools.map((n) => `"${n}"`).join(', ')}`;
}

function subtractMax(rem: ResourceList, options: TypeOption[]): void {
  for (const k of Object.keys(rem)) {
    if (k === 'nodes') {
      rem.nodes -= 1;
      continue;
    }
    let m = 0;
    for (const o of options) m = Math.max(m, o.it.capacity[k] ?? 0);
    rem[k] -= m;
  }
}

const claimOrder = (a: InProgressClaim, b: InProgressClaim) => a.pods.length - b.pods.length || a.index - b.index;

/**
 * The first index in claims[from, to) whose claim comes after `c` in claimOrder (to when none does). Claims with
 * as many pods are often hundreds: a pod added to one, or a new claim, would otherwise be swapped past each.
 */
function firstAfter(claims: InProgressClaim[], c: InProgressClaim, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (claimOrder(claims[mid], c) > 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Moves claims[from] to index `to`, the claims between shifting by one toward `from`; each keeps its `pos`. */
function moveClaim(claims: InProgressClaim[], from: number, to: number): void {
  const c = claims[from];
  const step = to > from ? 1 : -1;
  for (let k = from; k !== to; k += step) {
    claims[k] = claims[k + step];
    claims[k].pos = k;
  }
  claims[to] = c;
  c.pos = to;
}

/** Claim `claims[i]` gained a pod: it moves right to its place in claimOrder. */
function moveRight(claims: InProgressClaim[], i: number): void {
  moveClaim(claims, i, firstAfter(claims, claims[i], i + 1, claims.length) - 1);
}

/** A new claim joins the hostname indexes it qualifies for and its place in claimOrder. */
function addClaim(run: SolveRun, claim: InProgressClaim): void {
  const { claims } = run;
  for (const ix of run.hostIndex.values()) if (ix.g.count(claim.hostname) <= ix.threshold) ix.claims.add(claim);
  const at = firstAfter(claims, claim, 0, claims.length);
  claims.push(claim);
  moveClaim(claims, claims.length - 1, at);
}

// Hostname anti-affinity and hostname spread are the quadratic cases (replicas need their own nodes): per
// (group, threshold) keep the claims whose hostname count is still within the threshold, so an owner pod
// tries only those instead of scanning every claim.
function indexFor(run: SolveRun, g: TopologyGroup, threshold: number): HostIndex {
  const key = `${g.id}|${threshold}`;
  let ix = run.hostIndex.get(key);
  if (!ix) {
    ix = { g, threshold, claims: new Set(run.claims.filter((c) => g.count(c.hostname) <= threshold)) };
    run.hostIndex.set(key, ix);
  }
  return ix;
}

/** The claims worth trying for the pod, in claimOrder: all, or the smallest hostname index it is bound by. */
function claimCandidates(run: SolveRun, s: PodState): Iterable<InProgressClaim> {
  const { claims, topology } = run;
  if (!topology.hasGroups) return claims;
  let smallest: Set<InProgressClaim> | undefined;
  const owned = topology.ownedGroups(s);
  for (const g of owned.anti) {
    if (g.key !== Label.hostname) continue;
    const ix = indexFor(run, g, 0);
    if (!smallest || ix.claims.size < smallest.size) smallest = ix.claims;
  }
  for (const g of owned.spread) {
    if (g.key !== Label.hostname) continue;
    const ix = indexFor(run, g, g.maxSkew - (g.selects(s.pod) ? 1 : 0));
    if (!smallest || ix.claims.size < smallest.size) smallest = ix.claims;
  }
  // Sorting a large candidate set costs more than scanning with quick rejects.
  if (!smallest || smallest.size * 4 > claims.length) return claims;
  return [...smallest].sort(claimOrder);
}

/** After the pod went to claim `c`: drop `c` from the hostname indexes whose threshold it now exceeds. */
function unblock(run: SolveRun, s: PodState, c: InProgressClaim): void {
  if (run.hostIndex.size === 0) return;
  for (const g of run.topology.selectingGroups(s.pod)) {
    if (g.key !== Label.hostname) continue;
    const n = g.count(c.hostname);
    for (const t of [0, g.maxSkew - 1, g.maxSkew]) {
      const ix = run.hostIndex.get(`${g.id}|${t}`);
      if (ix && n > ix.threshold) ix.claims.delete(c);
    }
  }
}

function cloneState(s: PodState): PodState {
  return { ...s, relaxations: [...s.relaxations] };
}
