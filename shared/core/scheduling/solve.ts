/**
 * The scheduler (docs/karpenter-reference.md §2.2–2.3): pods in Karpenter's order go to existing nodes, then to claims opened
 * in this run (fewest pods first), then to a new claim from the NodePools in weight order. On failure one
 * preference is relaxed at a time; a pod that still fails goes to the back of the queue.
 */
import { Label } from '../model/labels';
import type { Pod } from '../model/kube';
import type { ResourceList } from '../model/resources';
import { Dims } from './dims';
import { ExistingNodeState } from './existing-node';
import { finalizeClaim } from './finalize';
import { InProgressClaim } from './nodeclaim';
import { compareForQueue, podStateIn, relax, type PodState } from './pod-data';
import { Requirement, type Requirements } from './requirements';
import { isStatic } from './static-claim';
import { buildTemplate, type Template, type TypeOption } from './template';
import { Topology, type TopologyGroup } from './topology';
import type { Plan, SchedulingInput, UnschedulablePod } from './types';
import { podVolumes, volumeIndex, volumeRequirements } from './volumes';

/** Why Karpenter would not consider the pod at all (docs/karpenter-reference.md §2.1), or undefined. */
export function ignoreReason(pod: Pod): string | undefined {
  const terms = pod.affinity?.nodeAffinity?.required ?? [];
  if (terms.some((t) => (t.matchFields?.length ?? 0) > 0)) return 'node affinity uses matchFields, which is not supported';
  const requiresNoPool = (reqs: { key: string; operator: string }[]) => reqs.some((r) => r.key === Label.nodePool && r.operator === 'DoesNotExist');
  if (terms.length > 0 && terms.every((t) => requiresNoPool(t.matchExpressions))) return 'pod requires karpenter.sh/nodepool DoesNotExist';
  return undefined;
}

interface Limits { remaining: ResourceList }

function subtractMax(rem: ResourceList, options: TypeOption[]): void {
  for (const k of Object.keys(rem)) {
    if (k === 'nodes') { rem.nodes -= 1; continue; }
    let m = 0;
    for (const o of options) m = Math.max(m, o.it.capacity[k] ?? 0);
    rem[k] -= m;
  }
}

export function solve(input: SchedulingInput): Plan {
  const opts = input.options ?? {};
  const maxTypes = opts.maxInstanceTypes ?? 60;
  const minValuesPolicy = opts.minValuesPolicy ?? 'Strict';
  const ignorePrefs = opts.preferencePolicy === 'Ignore';

  const dimNames = new Set<string>();
  for (const p of input.pods) for (const k in p.requests) dimNames.add(k);
  for (const d of input.daemonSets) for (const k in d.template.requests) dimNames.add(k);
  const dims = new Dims(dimNames);

  // Static NodePools (spec.replicas) keep a fixed count of nodes and are never launched for pending pods;
  // their nodes are still targets as existing nodes.
  const pools = input.nodePools
    .filter((p) => !p.deleting && p.ready !== false && !isStatic(p))
    .sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const templates: Template[] = pools.map((p) => buildTemplate(p, input.instanceTypes[p.name] ?? [], input.daemonSets, dims)).filter((t) => t.options.length > 0);
  const emptyPools = pools.filter((p) => !templates.some((t) => t.pool === p)).map((p) => p.name);

  const ignored: UnschedulablePod[] = [];
  const states: PodState[] = [];
  const vidx = volumeIndex(input.persistentVolumes, input.persistentVolumeClaims, input.storageClasses);
  input.pods.forEach((pod, i) => {
    if (pod.owner?.kind === 'DaemonSet') return;
    const why = ignoreReason(pod);
    if (why) { ignored.push({ pod, reason: why }); return; }
    const vr = volumeRequirements(pod, vidx);
    if (typeof vr === 'string') { ignored.push({ pod, reason: vr }); return; }
    const st = podStateIn(pod, i, vr, ignorePrefs, dims);
    if (pod.volumeClaims.length > 0) st.volumes = podVolumes(pod, vidx);
    states.push(st);
  });

  const existing = input.existingNodes
    .filter((n) => !n.markedForDeletion && !opts.excludeNodes?.has(n.name))
    .sort((a, b) => Number(b.initialized) - Number(a.initialized) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((n) => new ExistingNodeState(n, input.daemonSets, dims, (p) => podVolumes(p, vidx)));

  let existingRoom = new Float64Array(dims.size);
  for (const n of existing) for (let i = 0; i < dims.size; i++) if (n.remaining[i] > existingRoom[i]) existingRoom[i] = n.remaining[i];

  // Topology domains: what each pool's nodes could have (requirements, labels, types' labels and offerings),
  // plus every existing node's labels.
  const topology = new Topology(templates, existing.map((n) => ({ labels: n.labels, taints: n.node.taints })));
  for (const s of states) topology.ownedGroups(s);
  for (const n of input.existingNodes) for (const p of n.pods) topology.requiredAntiOf(p);
  if (topology.hasGroups) {
    for (const n of existing) for (const p of n.node.pods) topology.record(p, n.requirements, n.placement);
  }

  const limits = new Map<string, Limits>();
  for (const p of pools) {
    if (Object.keys(p.limits).length === 0) continue;
    const usage: ResourceList = input.poolUsage?.[p.name] ?? {};
    if (!input.poolUsage) {
      for (const n of input.existingNodes) {
        if (n.nodePool !== p.name) continue;
        for (const k in n.capacity) usage[k] = (usage[k] ?? 0) + n.capacity[k];
        usage.nodes = (usage.nodes ?? 0) + 1;
      }
    }
    const remaining: ResourceList = {};
    for (const k in p.limits) remaining[k] = p.limits[k] - (usage[k] ?? 0);
    limits.set(p.name, { remaining });
  }

  const claims: InProgressClaim[] = [];
  let hostnameSeq = 0;
  const claimOrder = (a: InProgressClaim, b: InProgressClaim) => a.pods.length - b.pods.length || a.index - b.index;
  const swap = (i: number, j: number) => {
    const a = claims[i];
    claims[i] = claims[j];
    claims[j] = a;
    claims[i].pos = i;
    claims[j].pos = j;
  };

  // Hostname anti-affinity and hostname spread are the quadratic cases (replicas need their own nodes): per
  // (group, threshold) keep the claims whose hostname count is still within the threshold, so an owner pod
  // tries only those instead of scanning every claim.
  interface HostIndex { g: TopologyGroup; threshold: number; claims: Set<InProgressClaim> }
  const hostIndex = new Map<string, HostIndex>();
  const indexFor = (g: TopologyGroup, threshold: number): HostIndex => {
    const key = `${g.id}|${threshold}`;
    let ix = hostIndex.get(key);
    if (!ix) {
      ix = { g, threshold, claims: new Set(claims.filter((c) => g.count(c.hostname) <= threshold)) };
      hostIndex.set(key, ix);
    }
    return ix;
  };
  const claimCandidates = (s: PodState): Iterable<InProgressClaim> => {
    if (!topology.hasGroups) return claims;
    let smallest: Set<InProgressClaim> | undefined;
    const owned = topology.ownedGroups(s);
    for (const g of owned.anti) {
      if (g.key !== Label.hostname) continue;
      const ix = indexFor(g, 0);
      if (!smallest || ix.claims.size < smallest.size) smallest = ix.claims;
    }
    for (const g of owned.spread) {
      if (g.key !== Label.hostname) continue;
      const ix = indexFor(g, g.maxSkew - (g.selects(s.pod) ? 1 : 0));
      if (!smallest || ix.claims.size < smallest.size) smallest = ix.claims;
    }
    // Sorting a large candidate set costs more than scanning with quick rejects.
    if (!smallest || smallest.size * 4 > claims.length) return claims;
    return [...smallest].sort(claimOrder);
  };
  const unblock = (s: PodState, c: InProgressClaim) => {
    if (hostIndex.size === 0) return;
    for (const g of topology.selectingGroups(s.pod)) {
      if (g.key !== Label.hostname) continue;
      const n = g.count(c.hostname);
      for (const t of [0, g.maxSkew - 1, g.maxSkew]) {
        const ix = hostIndex.get(`${g.id}|${t}`);
        if (ix && n > ix.threshold) ix.claims.delete(c);
      }
    }
  };

  const tryAdd = (s: PodState): string | undefined => {
    let firstExistingError: string | undefined;
    // Skip the scan of existing nodes when no node has room for the pod (the bound only ever shrinks and is
    // tightened after every full scan).
    let room = existing.length > 0;
    for (const i of s.reqNz) if (s.reqVec[i] > existingRoom[i]) { room = false; break; }
    if (room) {
      const seen = new Float64Array(dims.size);
      for (const n of existing) {
        for (let i = 0; i < seen.length; i++) if (n.remaining[i] > seen[i]) seen[i] = n.remaining[i];
        const r = n.canAdd(s, topology);
        if (typeof r === 'string') { firstExistingError ??= r; continue; }
        n.commit(s);
        if (topology.hasGroups) topology.record(s, r, n.placement);
        return undefined;
      }
      existingRoom = seen;
    } else if (existing.length > 0) {
      firstExistingError = 'no existing node has room';
    }
    for (const c of claimCandidates(s)) {
      const plan = c.canAdd(s, topology);
      if (typeof plan === 'string') continue;
      c.commit(s, plan);
      if (topology.hasGroups) { topology.record(s, plan.requirements, { matches: (f) => plan.requirements.compatible(f), taints: c.template.taints }); unblock(s, c); }
      let i = c.pos;
      while (i + 1 < claims.length && claimOrder(claims[i], claims[i + 1]) > 0) { swap(i, i + 1); i++; }
      return undefined;
    }
    const reasons: string[] = [];
    for (const t of templates) {
      let options = t.options;
      const lim = limits.get(t.pool.name);
      if (lim) {
        if (lim.remaining.nodes !== undefined && lim.remaining.nodes <= 0) { reasons.push(`nodepool "${t.pool.name}": limit on nodes reached`); continue; }
        options = options.filter((o) => Object.keys(lim.remaining).every((k) => k === 'nodes' || (o.it.capacity[k] ?? 0) <= lim.remaining[k]));
        if (options.length === 0) { reasons.push(`nodepool "${t.pool.name}": all instance types exceed the nodepool's remaining limits`); continue; }
      }
      const hostname = `hostname-placeholder-${String(hostnameSeq).padStart(4, '0')}`;
      topology.registerDomain(Label.hostname, hostname);
      const reqs: Requirements = t.requirements.with(Requirement.in(Label.hostname, [hostname]));
      const claim = new InProgressClaim(t, hostname, hostnameSeq, reqs, options, minValuesPolicy, dims);
      const plan = claim.canAdd(s, topology);
      if (typeof plan === 'string') { reasons.push(`nodepool "${t.pool.name}": ${plan}`); continue; }
      hostnameSeq++;
      claim.commit(s, plan);
      if (topology.hasGroups) { topology.record(s, plan.requirements, { matches: (f) => plan.requirements.compatible(f), taints: t.taints }); unblock(s, claim); }
      if (lim) subtractMax(lim.remaining, claim.options);
      for (const ix of hostIndex.values()) if (ix.g.count(claim.hostname) <= ix.threshold) ix.claims.add(claim);
      let i = claims.push(claim) - 1;
      claim.pos = i;
      while (i > 0 && claimOrder(claims[i - 1], claims[i]) > 0) { swap(i - 1, i); i--; }
      return undefined;
    }
    if (templates.length === 0) {
      const statics = input.nodePools.filter(isStatic).length;
      reasons.push(pools.length === 0
        ? (statics > 0 && statics === input.nodePools.length ? 'only static NodePools exist (spec.replicas): they are not used for pending pods' : 'no NodePool is ready')
        : `no instance types available for nodepool(s) ${emptyPools.map((n) => `"${n}"`).join(', ')}`);
    }
    if (firstExistingError && reasons.length === 0) reasons.push(firstExistingError);
    return reasons.join('; ');
  };

  // The queue: Karpenter's order; stop once a pod comes round with the queue unchanged since its last push.
  const queue = [...states].sort(compareForQueue);
  let head = 0;
  const lastLen = new Map<string, number>();
  const errors = new Map<string, { pod: Pod; reason: string }>();
  const poolTaints = templates.map((t) => t.taints);
  while (head < queue.length) {
    const s = queue[head];
    if (lastLen.get(s.pod.uid) === queue.length - head) break;
    head++;
    let work = s;
    let err = tryAdd(work);
    if (err !== undefined) {
      work = cloneState(s);
      while (err !== undefined && relax(work, poolTaints)) err = tryAdd(work);
    }
    if (err === undefined) { errors.delete(s.pod.uid); continue; }
    errors.set(s.pod.uid, { pod: s.pod, reason: err });
    queue.push(s);
    lastLen.set(s.pod.uid, queue.length - head);
  }

  return {
    nodeClaims: claims.sort((a, b) => a.index - b.index).map((c) => finalizeClaim(c, maxTypes)),
    existingPlacements: existing.filter((n) => n.placed.length > 0).map((n) => ({ node: n.node.name, pods: n.placed.map((s) => s.pod) })),
    unschedulable: [...errors.values()].sort((a, b) => (a.pod.uid < b.pod.uid ? -1 : 1)),
    ignored,
  };
}

function cloneState(s: PodState): PodState {
  return { ...s, relaxations: [...s.relaxations] };
}
