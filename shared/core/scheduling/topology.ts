/**
 * Topology spread, pod affinity and pod anti-affinity (docs/karpenter-reference.md §2.6). A TopologyGroup counts the pods its
 * selector matches per domain of one key; pods that carry a constraint "own" its group. Unlike Karpenter,
 * a zone-like anti-affinity or affinity bootstrap pins the claim to one domain, so independent replicas can
 * launch in parallel instead of one per provisioning loop. This file keeps the groups (created per constraint,
 * indexed by the labels they select) and narrows a claim's requirements; which domain one group allows is
 * decided in topology-domains.ts, and the group itself is topology-group.ts.
 */
import { NamespaceIndex } from './namespaces';
import type { LabelSelector, Pod, PodAffinityTerm, WeightedPodAffinityTerm } from '../model/kube';
import { Label, NormalizedLabels } from '../model/labels';
import { isActiveSpread, NONE, type PodState } from './pod-data';
import { Requirement, Requirements } from './requirements';
import { compileSelector, selectorKey, untoleratedTaint } from './selectors';
import { exists, nextDomainAffinity, nextDomainAnti, nextDomainSpread, pinned } from './topology-domains';
import { hardTaints, TopologyGroup, type DomainFilter, type GroupType, type NodeDomains, type Placement, type PoolDomains } from './topology-group';

export { TopologyGroup, type DomainFilter, type GroupType, type NodeDomains, type Placement, type PoolDomains } from './topology-group';

export interface OwnedGroups {
  spread: TopologyGroup[];
  affinity: TopologyGroup[];
  anti: TopologyGroup[];
  requiredAnti: TopologyGroup[];
}

const NO_DOMAINS: ReadonlySet<string> = new Set();

function onlyValue(set: ReadonlySet<string>): string {
  for (const v of set) return v;
  return '';
}

export class Topology {
  private readonly groups = new Map<string, TopologyGroup>();
  /** Groups whose selector requires a label, by that label's key and value (a pod's own strings look them up). */
  private readonly indexed = new Map<string, Map<string, TopologyGroup[]>>();
  private readonly unindexed: TopologyGroup[] = [];
  private readonly selecting = new Map<string, TopologyGroup[]>();
  private readonly antiGroups: TopologyGroup[] = [];
  private readonly namespaceSets = new Map<string, ReadonlySet<string>>();

  private domainMap?: Map<string, Set<string>>;
  /** Domains registered before the map was first needed, added after the pools' and nodes' (the same order). */
  private readonly registered: [string, string][] = [];
  private readonly filtered: TopologyGroup[] = [];

  constructor(
    private readonly pools: readonly PoolDomains[],
    private readonly nodes: readonly NodeDomains[],
    private readonly namespaceIndex = new NamespaceIndex(),
  ) {}

  /**
   * Every known value per topology key: what the pools' nodes could have, and existing nodes' labels. Built when
   * first needed: a solve without topology groups (most consolidation simulations) never walks every node's labels.
   */
  private get domains(): Map<string, Set<string>> {
    if (this.domainMap) return this.domainMap;
    const m = (this.domainMap = new Map());
    for (const p of this.pools) for (const [k, vs] of p.domains) for (const v of vs) addDomain(m, k, v);
    for (const n of this.nodes) for (const k in n.labels) addDomain(m, k, n.labels[k]);
    for (const [k, v] of this.registered) addDomain(m, k, v);
    return m;
  }

  registerDomain(key: string, value: string): void {
    if (this.domainMap) addDomain(this.domainMap, key, value);
    else this.registered.push([key, value]);
    for (const g of this.filtered) if (g.key === key) g.universe!.add(value);
  }

  get hasGroups(): boolean {
    return this.groups.size > 0;
  }

  private group(
    type: GroupType,
    owner: Pod,
    key: string,
    selector: LabelSelector | undefined,
    namespaces: ReadonlySet<string> | 'all',
    maxSkew: number,
    minDomains: number | undefined,
    nodeFilter: Requirements[] | undefined,
    taintFilter: TopologyGroup['taintFilter'],
    matchLabelKeys?: string[],
  ): TopologyGroup {
    let sel = selector;
    if (matchLabelKeys?.length && sel) {
      const extra: Record<string, string> = {};
      for (const k of matchLabelKeys) if (owner.labels[k] !== undefined) extra[k] = owner.labels[k];
      sel = { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), ...extra } };
    }
    const nsKey = namespaces === 'all' ? '*' : namespaces.size === 1 ? onlyValue(namespaces) : [...namespaces].sort().join(',');
    const filterKey =
      (nodeFilter ? JSON.stringify(nodeFilter.map((f) => f.toNodeSelector())) : '') + (taintFilter ? `|taints:${JSON.stringify(taintFilter.tolerations)}` : '');
    const id = `${type}|${key}|${nsKey}|${selectorKey(sel)}|${maxSkew}|${minDomains ?? ''}|${filterKey}`;
    let g = this.groups.get(id);
    if (!g) {
      const first = sel?.matchLabels ? Object.entries(sel.matchLabels)[0] : undefined;
      g = new TopologyGroup(this.groups.size, type, key, namespaces, compileSelector(sel), maxSkew, minDomains, nodeFilter, taintFilter);
      this.groups.set(id, g);
      if (nodeFilter || taintFilter) {
        g.universe = this.filteredUniverse(g);
        this.filtered.push(g);
      }
      if (first) {
        let byValue = this.indexed.get(first[0]);
        if (!byValue) this.indexed.set(first[0], (byValue = new Map()));
        const l = byValue.get(first[1]);
        if (l) l.push(g);
        else byValue.set(first[1], [g]);
      } else this.unindexed.push(g);
      if (type === 'anti-affinity') this.antiGroups.push(g);
      this.selecting.clear();
    }
    return g;
  }

  private termNamespaces(pod: Pod, term: PodAffinityTerm): ReadonlySet<string> | 'all' {
    return this.namespaceIndex.termNamespaces(pod.namespace, term);
  }

  /** Groups the pod owns with its currently active constraints (memoized per relaxation version). */
  ownedGroups(s: PodState): OwnedGroups {
    const memo = s.owned;
    if (memo && memo.topology === this && memo.version === s.version) return memo.groups;
    const pod = s.pod;
    // Kept for the whole solve: pods without such rules share one empty list (the lists are never changed). Built
    // by plain loops: every pod comes through here once, before the JIT has optimized anything.
    let spread: TopologyGroup[] = NONE;
    const spreads = pod.topologySpreadConstraints;
    for (let i = 0; i < spreads.length; i++) {
      const c = spreads[i];
      if (!isActiveSpread(s, c)) continue;
      const g = this.group(
        'spread',
        pod,
        c.topologyKey,
        c.labelSelector,
        this.namespaceSet(pod.namespace),
        c.maxSkew,
        c.minDomains,
        c.nodeAffinityPolicy === 'Ignore' ? undefined : nodeFilterOf(s),
        c.nodeTaintsPolicy === 'Honor' ? { tolerations: pod.tolerations } : undefined,
        c.matchLabelKeys,
      );
      if (spread === NONE) spread = [g];
      else spread.push(g);
    }
    const affinity = this.termGroups('affinity', pod, pod.affinity?.podAffinity?.required, s.preferredAffinity, NONE);
    const requiredAnti = this.termGroups('anti-affinity', pod, pod.affinity?.podAntiAffinity?.required, NONE, NONE);
    const anti = this.termGroups('anti-affinity', pod, undefined, s.preferredAntiAffinity, requiredAnti);
    const groups = { spread, affinity, anti, requiredAnti };
    s.owned = { topology: this, version: s.version, groups };
    return groups;
  }

  /** `before`, then the groups of the required terms, then of the preferred ones (NONE when there are none). */
  private termGroups(
    type: GroupType,
    pod: Pod,
    required: readonly PodAffinityTerm[] | undefined,
    preferred: readonly WeightedPodAffinityTerm[],
    before: TopologyGroup[],
  ): TopologyGroup[] {
    const n = (required?.length ?? 0) + preferred.length;
    if (n === 0) return before;
    const out = before.slice();
    if (required) for (let i = 0; i < required.length; i++) out.push(this.termGroup(type, pod, required[i]));
    for (let i = 0; i < preferred.length; i++) out.push(this.termGroup(type, pod, preferred[i].podAffinityTerm));
    return out;
  }

  private termGroup(type: GroupType, pod: Pod, t: PodAffinityTerm): TopologyGroup {
    return this.group(type, pod, t.topologyKey, t.labelSelector, this.termNamespaces(pod, t), 0, undefined, undefined, undefined, t.matchLabelKeys);
  }

  /** One set per namespace for the spreads' groups (a group never changes its namespaces). */
  private namespaceSet(ns: string): ReadonlySet<string> {
    let set = this.namespaceSets.get(ns);
    if (!set) this.namespaceSets.set(ns, (set = new Set([ns])));
    return set;
  }

  /** Groups whose selector matches the pod (their counts change when it is placed). */
  selectingGroups(pod: Pod): TopologyGroup[] {
    let out = this.selecting.get(pod.uid);
    if (out) return out;
    out = [];
    for (let i = 0; i < this.unindexed.length; i++) if (this.unindexed[i].selects(pod)) out.push(this.unindexed[i]);
    const labels = pod.labels;
    for (const k in labels) {
      const gs = this.indexed.get(k)?.get(labels[k]);
      if (gs) for (let i = 0; i < gs.length; i++) if (gs[i].selects(pod)) out.push(gs[i]);
    }
    this.selecting.set(pod.uid, out);
    return out;
  }

  /**
   * Narrows `reqs` (a claim's or node's requirements after the pod's own) with the pod's topology.
   * Returns the new requirements, or a string saying why the pod cannot go there.
   */
  addRequirements(s: PodState, reqs: Requirements, feasible?: DomainFilter): Requirements | string {
    const owned = this.ownedGroups(s);
    let out = reqs;
    // Indexed loops here and below: these run for every claim a pod tries, mostly before the JIT optimizes them,
    // where for…of allocates an iterator result per step.
    for (let i = 0; i < owned.spread.length; i++) {
      const g = owned.spread[i];
      const r = nextDomainSpread(g, s, out.get(g.key) ?? exists(g.key), this.spreadUniverse(g), feasible);
      if (typeof r === 'string') return r;
      if (r) out = out.with(r);
    }
    for (let i = 0; i < owned.affinity.length; i++) {
      const g = owned.affinity[i];
      const r = nextDomainAffinity(g, s, out.get(g.key) ?? exists(g.key), this.universe(g.key), feasible);
      if (typeof r === 'string') return r;
      if (r) out = out.with(r);
    }
    for (let i = 0; i < owned.anti.length; i++) {
      const g = owned.anti[i];
      const r = nextDomainAnti(g, s, out.get(g.key) ?? exists(g.key), this.universe(g.key), feasible);
      if (typeof r === 'string') return r;
      if (r) out = out.with(r);
    }
    for (let i = 0; i < this.antiGroups.length; i++) {
      const g = this.antiGroups[i];
      if (g.ownerDomains.size === 0 || !g.selects(s.pod)) continue;
      const nd = out.get(g.key) ?? exists(g.key);
      if (!nd.complement) {
        let allowed = 0;
        for (const d of nd.values) if (!g.ownerDomains.has(d)) allowed++;
        if (allowed === nd.values.size) continue;
        if (allowed === 0) return g.reasons.inverse;
      }
      out = out.with(new Requirement(g.key, true, new Set(g.ownerDomains)));
      const after = out.get(g.key)!;
      if (!after.complement && after.values.size === 0) return g.reasons.inverse;
    }
    return out;
  }

  /**
   * Cheap pre-check before the full (allocating) topology pass: for every group the pod owns whose key the
   * target already pins to one domain (a claim's hostname, a zone chosen earlier), decide that domain
   * directly; also inverse anti-affinity on pinned keys. Returns a reason, or undefined when the full check
   * is still needed.
   */
  quickReject(s: PodState, reqs: Requirements): string | undefined {
    const owned = this.ownedGroups(s);
    for (let i = 0; i < owned.anti.length; i++) {
      const g = owned.anti[i];
      const d = pinned(reqs, g.key);
      if (d !== undefined && g.count(d) > 0) return g.reasons.anti;
    }
    for (let i = 0; i < owned.spread.length; i++) {
      const g = owned.spread[i];
      const d = pinned(reqs, g.key);
      if (d === undefined) continue;
      if (g.key === Label.hostname) {
        if (g.count(d) + (g.selects(s.pod) ? 1 : 0) > g.maxSkew) return g.reasons.spread;
      } else if (nextDomainSpread(g, s, Requirement.in(g.key, [d]), this.spreadUniverse(g)) !== undefined) return g.reasons.spread;
    }
    for (let i = 0; i < owned.affinity.length; i++) {
      const g = owned.affinity[i];
      const d = pinned(reqs, g.key);
      if (d === undefined || g.count(d) > 0) continue;
      if (g.rulesOutEmptyDomains(s.pod)) return g.reasons.affinityElsewhere;
    }
    const selecting = this.selectingGroups(s.pod);
    for (let i = 0; i < selecting.length; i++) {
      const g = selecting[i];
      if (g.type !== 'anti-affinity' || g.ownerDomains.size === 0) continue;
      const d = pinned(reqs, g.key);
      if (d !== undefined && g.ownerDomains.has(d)) return g.reasons.inverse;
    }
    return undefined;
  }

  private universe(key: string): ReadonlySet<string> {
    return this.domains.get(key) ?? NO_DOMAINS;
  }

  /**
   * A spread's domains under its node filter (Karpenter's TopologyDomainGroup + countDomains): the pools'
   * domains (only pools whose taints the owner tolerates, with nodeTaintsPolicy Honor) and the domains of
   * existing nodes that pass the filter — a node the pod's nodeSelector / required affinity excludes adds no
   * empty domain that would hold the minimum at 0.
   */
  private filteredUniverse(g: TopologyGroup): Set<string> {
    const out = new Set<string>();
    for (const p of this.pools) {
      if (g.taintFilter && untoleratedTaint(g.taintFilter, hardTaints(p.taints))) continue;
      const ds = p.domains.get(g.key);
      if (ds) for (const d of ds) out.add(d);
    }
    for (const n of this.nodes) {
      const d = n.labels[g.key];
      if (d === undefined || out.has(d)) continue;
      if (g.countsOn({ matches: (f) => f.matchesLabels(n.labels), taints: n.taints })) out.add(d);
    }
    return out;
  }

  private spreadUniverse(g: TopologyGroup): ReadonlySet<string> {
    return g.universe ?? this.universe(g.key);
  }

  /** Records a placed pod: counts in every group selecting it, owner domains for its required anti-affinity. */
  record(s: PodState | Pod, reqs: Requirements, at: Placement): void {
    const pod = 'pod' in s ? s.pod : s;
    const selecting = this.selectingGroups(pod);
    for (let i = 0; i < selecting.length; i++) {
      const g = selecting[i];
      if ((g.nodeFilter || g.taintFilter) && !g.countsOn(at)) continue;
      const dr = reqs.get(g.key);
      if (g.type === 'anti-affinity') {
        if (!dr || dr.complement) {
          for (const d of this.universe(g.key)) if (!dr || dr.has(d)) g.add(d);
        } else for (const d of dr.values) g.add(d);
      } else if (dr && !dr.complement && dr.values.size === 1) {
        g.add(dr.values.values().next().value as string);
      }
    }
    const owned = 'pod' in s ? this.ownedGroups(s).requiredAnti : this.requiredAntiOf(pod);
    for (let i = 0; i < owned.length; i++) {
      const g = owned[i];
      const dr = reqs.get(g.key);
      if (!dr || dr.complement) {
        for (const d of this.universe(g.key)) if (!dr || dr.has(d)) g.ownerDomains.add(d);
      } else for (const d of dr.values) g.ownerDomains.add(d);
    }
  }

  /** Required anti-affinity groups of an already-running pod (inverse anti-affinity). */
  requiredAntiOf(pod: Pod): TopologyGroup[] {
    return (pod.affinity?.podAntiAffinity?.required ?? []).map((t) =>
      this.group('anti-affinity', pod, t.topologyKey, t.labelSelector, this.termNamespaces(pod, t), 0, undefined, undefined, undefined, t.matchLabelKeys),
    );
  }
}

function addDomain(m: Map<string, Set<string>>, key: string, value: string): void {
  let s = m.get(key);
  if (!s) m.set(key, (s = new Set()));
  s.add(value);
}

/**
 * The nodes whose pods count for the pod's spread (nodeAffinityPolicy Honor): nodeSelector with ANY of the pod's required node-affinity terms — from the pod itself, so relaxing a
 * required term keeps the same group and its counts.
 */
function nodeFilterOf(s: PodState): Requirements[] | undefined {
  const base = new Requirements();
  for (const [k, v] of Object.entries(s.pod.nodeSelector)) base.addInPlace(Requirement.in(NormalizedLabels[k] ?? k, [v]));
  const terms = s.pod.affinity?.nodeAffinity?.required ?? [];
  if (terms.length === 0) return base.byKey.size > 0 ? [base] : undefined;
  return terms.map((t) => base.intersect(Requirements.fromNodeSelector(t.matchExpressions)));
}
