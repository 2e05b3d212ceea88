/** Turns an in-progress claim into the plan's NodeClaim (docs/karpenter-reference.md §2.3 Finalize, §2.8). */
import { CapacityType, type CapacityTypeValue, Label } from '../model/labels';
import type { ResourceList } from '../model/resources';
import type { InProgressClaim } from './nodeclaim';
import type { NodeSelectorRequirement } from '../model/kube';
import type { Requirement, Requirements } from './requirements';
import { offeringMatcher, type TypeOption } from './template';
import { customLabelValue, isCustomLabelKey } from './custom-labels';
import type { PlannedNodeClaim } from './types';

const CAPACITY_ORDER: CapacityTypeValue[] = [CapacityType.reserved, CapacityType.spot, CapacityType.onDemand];

type OfferingMatch = ReturnType<typeof offeringMatcher>;
type PriceByCapacity = Partial<Record<string, number>>;

/**
 * Each option's cheapest offering price per capacity type under a claim's offering requirements (zone, capacity
 * type, zone ID), by option and by those requirements: the claims of one solve share a few zone pins, so an
 * option's offerings are matched once per pin instead of once per claim.
 */
export type FinalizeMemo = Map<string, Map<TypeOption, PriceByCapacity>>;
export const newFinalizeMemo = (): FinalizeMemo => new Map();

const requirementKey = (r: Requirement | undefined) => (r ? `${r.complement ? '!' : ''}${[...r.values].join(',')}:${r.gte ?? ''}:${r.lte ?? ''}` : '-');

/** The options' prices per capacity type as the claim may launch them: the pool's, or its offerings that match. */
function pricesFor(reqs: Requirements, poolOfferings: boolean, memo: FinalizeMemo | undefined): (o: TypeOption) => PriceByCapacity {
  if (poolOfferings) return (o) => o.byCapacity;
  const match: OfferingMatch = offeringMatcher(reqs);
  const matched = (o: TypeOption) => {
    const out: PriceByCapacity = {};
    for (const x of o.offerings) {
      if (!match(x)) continue;
      // Offered (the key is present) even without a finite price; the price is the cheapest finite one.
      const held = out[x.capacityType] ?? Infinity;
      out[x.capacityType] = x.price < held ? x.price : held;
    }
    return out;
  };
  if (!memo) return matched;
  const key = `${requirementKey(reqs.get(Label.zone))}|${requirementKey(reqs.get(Label.capacityType))}|${requirementKey(reqs.get(Label.zoneId))}`;
  let byOption = memo.get(key);
  if (!byOption) memo.set(key, (byOption = new Map()));
  const known = byOption;
  return (o) => {
    let prices = known.get(o);
    if (!prices) known.set(o, (prices = matched(o)));
    return prices;
  };
}

export function finalizeClaim(claim: InProgressClaim, maxInstanceTypes: number, memo?: FinalizeMemo): PlannedNodeClaim {
  const reqs = claim.requirements;
  // Zone, zone ID and capacity type as the pool has them: an option's price is its cheapest offering (minPrice).
  const tmpl = claim.template.requirements;
  const poolOfferings =
    reqs.get(Label.zone) === tmpl.get(Label.zone) &&
    reqs.get(Label.capacityType) === tmpl.get(Label.capacityType) &&
    reqs.get(Label.zoneId) === tmpl.get(Label.zoneId);
  const prices = pricesFor(reqs, poolOfferings, memo);
  const options = cheapestOptions(claim, maxInstanceTypes, poolOfferings, prices);
  const { offered, capacityType, price } = launchCapacity(options.map(prices));

  const zoneReq = reqs.get(Label.zone);
  const zone = zoneReq && !zoneReq.complement && zoneReq.values.size === 1 ? (zoneReq.values.values().next().value as string) : null;

  const daemon = daemonOverhead(options);
  const requests: ResourceList = { ...claim.requests };
  for (const k in daemon) requests[k] = (requests[k] ?? 0) + daemon[k];

  const names = options.map((o) => o.it.name);
  const ctReq = reqs.get(Label.capacityType);
  const allowed = [...offered].filter((c) => !ctReq || ctReq.has(c)).sort();

  return {
    hostname: claim.hostname,
    nodePool: claim.template.pool.name,
    instanceTypes: options.map((o) => o.it),
    requirements: claimRequirements(reqs, names, allowed),
    capacityType,
    zone,
    pods: claim.pods.map((s) => s.pod),
    requests,
    daemonOverhead: daemon,
    price: Number.isFinite(price) ? price : 0,
    labels: claimLabels(claim, names, allowed),
    annotations: { ...claim.template.pool.template.annotations },
    taints: claim.template.taints,
    startupTaints: claim.template.startupTaints,
    nodeClassRef: claim.template.pool.template.nodeClassRef,
    expireAfter: claim.template.pool.template.expireAfter,
    terminationGracePeriod: claim.template.pool.template.terminationGracePeriod,
    minValuesRelaxed: claim.minValuesRelaxed || undefined,
  };
}

function cheapest(p: PriceByCapacity): number {
  let min = Infinity;
  for (const ct in p) if (p[ct]! < min) min = p[ct]!;
  return min;
}

const heldScratch: TypeOption[] = [];
const priceScratch: number[] = [];

/** The claim's `maxInstanceTypes` cheapest options under its requirements (by price, then name). */
function cheapestOptions(claim: InProgressClaim, maxInstanceTypes: number, poolOfferings: boolean, prices: (o: TypeOption) => PriceByCapacity): TypeOption[] {
  // Exotic types (GPU, accelerators, metal) only when nothing else satisfies the pods.
  const anyPlain = claim.someOption((o) => !o.it.exotic);
  // Options and their prices side by side (no object per option: a claim may look at hundreds), in arrays the
  // claims of a solve reuse: only the options kept are copied out.
  const held = heldScratch;
  const price = priceScratch;
  held.length = 0;
  price.length = 0;
  let sorted = true;
  let hi = -Infinity;
  const { all, alive } = claim.optionFlags;
  for (let i = 0; i < all.length; i++) {
    if (alive[i] !== 1) continue;
    const o = all[i];
    if (anyPlain && o.it.exotic) continue;
    // Options come cheapest-first by their unrestricted price, a lower bound: once we hold enough and the
    // next lower bound exceeds every price held, nothing later can make the cut.
    if (held.length >= maxInstanceTypes && o.minPrice > hi) break;
    const p = poolOfferings ? o.minPrice : cheapest(prices(o));
    const last = held.length - 1;
    if (last >= 0 && (price[last] > p || (price[last] === p && held[last].it.name > o.it.name))) sorted = false;
    held.push(o);
    price.push(p);
    if (p > hi) hi = p;
  }
  let chosen: TypeOption[];
  if (sorted) chosen = held.slice(0, maxInstanceTypes);
  else {
    const byPrice = held.map((_, i) => i);
    const name = (i: number) => held[i].it.name;
    byPrice.sort((a, b) => price[a] - price[b] || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
    chosen = byPrice.slice(0, maxInstanceTypes).map((i) => held[i]);
  }
  held.length = 0; // holds no options past the claim
  return chosen;
}

/**
 * Capacity type the launch would request, from the chosen options' prices: reserved > spot > on-demand; spot dearer
 * than the cheapest on-demand offering is ignored (docs/karpenter-reference.md §2.8). Also the capacity types
 * offered, and the price.
 * A spot price is usable when at most the cheapest on-demand one, so an option's cheapest price per capacity type decides.
 */
function launchCapacity(prices: PriceByCapacity[]): { offered: Set<string>; capacityType: CapacityTypeValue; price: number } {
  let cheapestOnDemand = Infinity;
  const offered = new Set<string>();
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i];
    for (const ct in p) offered.add(ct);
    const od = p[CapacityType.onDemand];
    if (od !== undefined && od < cheapestOnDemand) cheapestOnDemand = od;
  }
  const usable = (ct: CapacityTypeValue, price: number) => ct !== CapacityType.spot || price <= cheapestOnDemand || !Number.isFinite(cheapestOnDemand);
  let capacityType: CapacityTypeValue = CapacityType.onDemand;
  let price = Infinity;
  for (const ct of CAPACITY_ORDER) {
    if (!offered.has(ct)) continue;
    for (let i = 0; i < prices.length; i++) {
      const p = prices[i][ct];
      if (p !== undefined && p < price && usable(ct, p)) price = p;
    }
    if (Number.isFinite(price)) {
      capacityType = ct;
      break;
    }
  }
  return { offered, capacityType, price };
}

/** DaemonSet overhead every option carries: the per-resource minimum over the options. */
function daemonOverhead(options: TypeOption[]): ResourceList {
  const daemon: ResourceList = {};
  if (options.length > 0) Object.assign(daemon, options[0].daemon);
  for (let i = 1; i < options.length; i++) {
    const d = options[i].daemon;
    for (const k in daemon) daemon[k] = Math.min(daemon[k], d[k] ?? 0);
  }
  return daemon;
}

/** The claim's requirements (no placeholder hostname), with the chosen instance types and capacity types, by key. */
function claimRequirements(reqs: Requirements, names: string[], allowed: string[]): NodeSelectorRequirement[] {
  const requirements: NodeSelectorRequirement[] = [];
  for (const r of reqs.values()) {
    if (r.key === Label.hostname || r.key === Label.instanceType || r.key === Label.capacityType) continue;
    requirements.push(r.toNodeSelector());
  }
  requirements.push({ key: Label.instanceType, operator: 'In', values: names });
  requirements.push({ key: Label.capacityType, operator: 'In', values: allowed });
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements;
}

/** The template's labels, every requirement pinned to one value, and custom keys as Karpenter resolves them. */
function claimLabels(claim: InProgressClaim, names: string[], allowed: string[]): Record<string, string> {
  const labels: Record<string, string> = { ...claim.template.labels };
  for (const r of claim.requirements.values()) {
    if (r.key === Label.hostname) continue;
    if (isCustomLabelKey(r.key)) {
      const value = customLabelValue(r);
      if (value !== undefined) labels[r.key] = value;
      continue;
    }
    if (r.complement || r.values.size !== 1 || r.gte !== undefined || r.lte !== undefined) continue;
    if (r.key === Label.instanceType && names.length !== 1) continue;
    labels[r.key] = r.values.values().next().value as string;
  }
  if (names.length === 1) labels[Label.instanceType] = names[0];
  if (allowed.length === 1) labels[Label.capacityType] = allowed[0];
  return labels;
}
