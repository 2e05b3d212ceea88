/**
 * A NodePool as the scheduler uses it: requirements (pool requirements ∪ labels ∪ nodepool), taints, and
 * the instance types compatible with it, each with its DaemonSet overhead precomputed (docs/karpenter-reference.md §2.2).
 */
import type { InstanceType, Offering } from '../instance-types/types';
import type { DaemonSet, Taint } from '../model/kube';
import type { NodePool } from '../model/karpenter';
import { InstanceTypePropertyLabels, Label, WellKnownLabels } from '../model/labels';
import { addInto, type ResourceList } from '../model/resources';
import type { Dims } from './dims';
import { Requirement, Requirements } from './requirements';
import { hostPortKeys } from './host-ports';
import { untoleratedTaint } from './selectors';

/** Label keys whose values come from the instance type itself (a missing label = DoesNotExist). */
export const TypeLabelKeys: ReadonlySet<string> = new Set([Label.instanceType, Label.arch, Label.os, ...InstanceTypePropertyLabels, Label.windowsBuild]);

/** Keys resolved by offerings rather than labels. */
export const OfferingKeys: ReadonlySet<string> = new Set([Label.zone, Label.capacityType, Label.zoneId]);

export interface TypeOption {
  it: InstanceType;
  /** allocatable − DaemonSet overhead for this pool. */
  effective: ResourceList;
  /** `effective` as a vector over the solve's Dims. */
  eff: Float64Array;
  daemon: ResourceList;
  /** Available offerings only. */
  offerings: Offering[];
  /** Position in the pool's cheapest-first order. */
  rank: number;
  /** Host ports the type's DaemonSet pods use (`protocol/ip/port` keys): a pending pod may not take them. */
  daemonPorts: ReadonlySet<string>;
  /** Cheapest available offering under the pool's requirements (a lower bound for any claim). */
  minPrice: number;
  /** Offered in every (zone × capacity type) of the template's universe: zone/capacity narrowing never drops it. */
  full: boolean;
  /** Cheapest available offering per capacity type under the pool's requirements. */
  byCapacity: Partial<Record<string, number>>;
}

export interface Template {
  pool: NodePool;
  requirements: Requirements;
  labels: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  options: TypeOption[];
  /** Zones and capacity types offered by any option. */
  zones: string[];
  capacityTypes: string[];
  /** Every value a node of this pool could have per label key (requirements, labels, options' labels and offerings): topology domains. */
  domains: Map<string, Set<string>>;
  /** Per resource dimension, the option indices by effective allocatable ascending (built by the claims when first needed). */
  ascending?: Int32Array[];
}

/** True when the instance type's labels satisfy `reqs` on the given keys (or all type keys). */
export function typeMatches(it: InstanceType, reqs: Requirements, keys?: Iterable<string>): boolean {
  if (keys) {
    for (const k of keys) {
      if (!TypeLabelKeys.has(k)) continue;
      const r = reqs.get(k);
      if (r && !r.has(it.labels[k])) return false;
    }
    return true;
  }
  for (const [k, r] of reqs.byKey) {
    if (TypeLabelKeys.has(k) && !r.has(it.labels[k])) return false;
  }
  return true;
}

export function offeringMatches(o: Offering, reqs: Requirements): boolean {
  const z = reqs.get(Label.zone);
  if (z && !z.has(o.zone)) return false;
  const c = reqs.get(Label.capacityType);
  if (c && !c.has(o.capacityType)) return false;
  const zid = reqs.get(Label.zoneId);
  if (zid && o.zoneId !== undefined && !zid.has(o.zoneId)) return false;
  return true;
}

/** offeringMatches with the requirements looked up once. */
export function offeringMatcher(reqs: Requirements): (o: Offering) => boolean {
  const z = reqs.get(Label.zone);
  const c = reqs.get(Label.capacityType);
  const zid = reqs.get(Label.zoneId);
  if (!z && !c && !zid) return () => true;
  return (o) => (!z || z.has(o.zone)) && (!c || c.has(o.capacityType)) && (!zid || o.zoneId === undefined || zid.has(o.zoneId));
}

/** A DaemonSet pod's scheduling constraints, compiled once per build. */
interface DaemonPod {
  requests: ResourceList;
  ports: string[];
  selector: Requirements;
  terms: Requirements[];
  tolerates: boolean;
}

function compileDaemons(daemonSets: DaemonSet[], taints: Taint[]): DaemonPod[] {
  const hard = taints.filter((t) => t.effect !== 'PreferNoSchedule');
  return daemonSets.map((ds) => ({
    requests: ds.template.requests,
    ports: hostPortKeys(ds.template.hostPorts),
    selector: Requirements.fromLabels(ds.template.nodeSelector),
    terms: (ds.template.affinity?.nodeAffinity?.required ?? []).map((t) => Requirements.fromNodeSelector(t.matchExpressions)),
    tolerates: !untoleratedTaint(ds.template, hard),
  }));
}

/** Does a node made from this template and type satisfy `reqs`? (template requirements first, then the type's labels). */
function nodeSatisfies(tmplReqs: Requirements, it: InstanceType, reqs: Requirements): boolean {
  for (const [k, r] of reqs.byKey) {
    const t = tmplReqs.get(k);
    if (t) {
      if (!t.intersects(r)) return false;
      continue;
    }
    const v = it.labels[k];
    if (v !== undefined) {
      if (!r.has(v)) return false;
      continue;
    }
    if (!r.isNegative() && !WellKnownLabels.has(k)) return false;
  }
  return true;
}

const NO_PORTS: ReadonlySet<string> = new Set();

function daemonOverhead(daemons: DaemonPod[], tmplReqs: Requirements, it: InstanceType): { total: ResourceList; ports: ReadonlySet<string> } {
  const total: ResourceList = {};
  let ports: Set<string> | undefined;
  for (const d of daemons) {
    if (!d.tolerates || !nodeSatisfies(tmplReqs, it, d.selector)) continue;
    if (d.terms.length > 0 && !d.terms.some((t) => nodeSatisfies(tmplReqs, it, t))) continue;
    addInto(total, d.requests);
    total.pods = (total.pods ?? 0) + 1;
    if (d.ports.length > 0) for (const k of d.ports) (ports ??= new Set()).add(k);
  }
  return { total, ports: ports ?? NO_PORTS };
}

/**
 * Templates are pure functions of (pool, types, DaemonSets, dims) and are rebuilt for every solve otherwise:
 * the disruption core solves many times per pass with the same objects, so keep them by identity.
 */
const templateCache = new WeakMap<NodePool, WeakMap<InstanceType[], WeakMap<DaemonSet[], Map<string, Template>>>>();

export function buildTemplate(pool: NodePool, types: InstanceType[], daemonSets: DaemonSet[], dims: Dims): Template {
  let byTypes = templateCache.get(pool);
  if (!byTypes) templateCache.set(pool, (byTypes = new WeakMap()));
  let byDs = byTypes.get(types);
  if (!byDs) byTypes.set(types, (byDs = new WeakMap()));
  let byDims = byDs.get(daemonSets);
  if (!byDims) byDs.set(daemonSets, (byDims = new Map()));
  const key = dims.names.join('|');
  let t = byDims.get(key);
  if (!t) byDims.set(key, (t = buildTemplateUncached(pool, types, daemonSets, dims)));
  return t;
}

function buildTemplateUncached(pool: NodePool, types: InstanceType[], daemonSets: DaemonSet[], dims: Dims): Template {
  const reqs = Requirements.fromNodeSelector(pool.template.requirements);
  for (const [k, v] of Object.entries(pool.template.labels)) reqs.addInPlace(Requirement.in(k, [v]));
  reqs.addInPlace(Requirement.in(Label.nodePool, [pool.name]));
  reqs.addInPlace(Requirement.in(Label.ec2NodeClass, [pool.template.nodeClassRef.name]));
  const dsReqs = reqs
    .clone()
    .addInPlace(Requirement.in(Label.registered, ['true']))
    .addInPlace(Requirement.in(Label.initialized, ['true']));
  // Which DaemonSets run on the pool's nodes is decided by its taints only: startup taints are removed once the
  // node is initialized and keep no DaemonSet off it (Karpenter: the template's Spec.Taints).
  const daemons = compileDaemons(daemonSets, pool.template.taints);
  const options: TypeOption[] = [];
  for (const it of types) {
    if (!typeMatches(it, reqs)) continue;
    const offerings = it.offerings.filter((o) => o.available && offeringMatches(o, reqs));
    if (offerings.length === 0) continue;
    const { total: daemon, ports: daemonPorts } = daemons.length > 0 ? daemonOverhead(daemons, dsReqs, it) : { total: {}, ports: NO_PORTS };
    const effective: ResourceList = { ...it.allocatable };
    let daemonsFit = true;
    for (const k in daemon) {
      effective[k] = (effective[k] ?? 0) - daemon[k];
      if (effective[k] < 0) daemonsFit = false;
    }
    // The DaemonSets alone do not fit in some resource (any resource, also one the pending pods do not ask for,
    // which the fit checks then never look at): the type cannot host the pool's nodes.
    if (!daemonsFit) continue;
    const byCapacity: Partial<Record<string, number>> = {};
    for (const x of offerings) if (!(x.price >= (byCapacity[x.capacityType] ?? Infinity))) byCapacity[x.capacityType] = x.price;
    options.push({
      it,
      effective,
      eff: dims.vec(effective),
      daemon,
      daemonPorts,
      offerings,
      rank: 0,
      minPrice: Math.min(...offerings.map((x) => x.price)),
      full: false,
      byCapacity,
    });
  }
  options.sort((a, b) => a.minPrice - b.minPrice || (a.it.name < b.it.name ? -1 : 1));
  options.forEach((o, i) => {
    o.rank = i;
  });
  const zones = [...new Set(options.flatMap((o) => o.offerings.map((x) => x.zone)))].sort();
  const capacityTypes = [...new Set(options.flatMap((o) => o.offerings.map((x) => x.capacityType)))].sort();
  for (const o of options) {
    const have = new Set(o.offerings.map((x) => `${x.zone}|${x.capacityType}`));
    o.full = zones.every((z) => capacityTypes.every((c) => have.has(`${z}|${c}`)));
  }
  return {
    pool,
    domains: templateDomains(reqs, options),
    requirements: reqs,
    labels: { ...pool.template.labels, [Label.nodePool]: pool.name, [Label.ec2NodeClass]: pool.template.nodeClassRef.name },
    taints: pool.template.taints,
    startupTaints: pool.template.startupTaints,
    options,
    zones,
    capacityTypes,
  };
}

/**
 * Topology domains a pool contributes (Karpenter's buildDomainGroups): for every key, the values its
 * instance types' labels and offerings take under the pool's requirements, and the values its In
 * requirements and labels name — so anti-affinity or spread on e.g. `kubernetes.io/arch` sees both
 * architectures of an open pool.
 */
function templateDomains(reqs: Requirements, options: readonly TypeOption[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (k: string, v: string) => {
    let set = out.get(k);
    if (!set) out.set(k, (set = new Set()));
    set.add(v);
  };
  for (const r of reqs.values()) if (!r.complement) for (const v of r.values) add(r.key, v);
  for (const o of options) {
    for (const k in o.it.labels) {
      const r = reqs.get(k);
      if (!r || r.has(o.it.labels[k])) add(k, o.it.labels[k]);
    }
    for (const x of o.offerings) {
      add(Label.zone, x.zone);
      add(Label.capacityType, x.capacityType);
      if (x.zoneId !== undefined) add(Label.zoneId, x.zoneId);
    }
  }
  return out;
}

/** True when some (zone × capacity type) of the template's universe satisfies the requirements. */
export function domainAllows(t: Template, reqs: Requirements): boolean {
  const z = reqs.get(Label.zone);
  const c = reqs.get(Label.capacityType);
  return t.zones.some((zone) => !z || z.has(zone)) && t.capacityTypes.some((ct) => !c || c.has(ct));
}
