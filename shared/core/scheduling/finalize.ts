/** Turns an in-progress claim into the plan's NodeClaim (reference §2.3 Finalize, §2.8). */
import { CapacityType, type CapacityTypeValue, Label } from '../model/labels';
import type { ResourceList } from '../model/resources';
import type { InProgressClaim } from './nodeclaim';
import { Requirement } from './requirements';
import { offeringMatcher, type TypeOption } from './template';
import type { PlannedNodeClaim } from './types';

const CAPACITY_ORDER: CapacityTypeValue[] = [CapacityType.reserved, CapacityType.spot, CapacityType.onDemand];

export function finalizeClaim(claim: InProgressClaim, maxInstanceTypes: number): PlannedNodeClaim {
  const reqs = claim.requirements;
  const match = offeringMatcher(reqs);
  // Exotic types (GPU, accelerators, metal) only when nothing else satisfies the pods.
  const anyPlain = claim.options.some((o) => !o.it.exotic);
  const priced: { o: TypeOption; price: number }[] = [];
  let sorted = true;
  let hi = -Infinity;
  for (const o of claim.options) {
    if (anyPlain && o.it.exotic) continue;
    // Options come cheapest-first by their unrestricted price, a lower bound: once we hold enough and the
    // next lower bound exceeds every price held, nothing later can make the cut.
    if (priced.length >= maxInstanceTypes && o.minPrice > hi) break;
    let price = Infinity;
    for (const x of o.offerings) if (x.price < price && match(x)) price = x.price;
    const prev = priced[priced.length - 1];
    if (prev && (prev.price > price || (prev.price === price && prev.o.it.name > o.it.name))) sorted = false;
    priced.push({ o, price });
    if (price > hi) hi = price;
  }
  if (!sorted) priced.sort((a, b) => a.price - b.price || (a.o.it.name < b.o.it.name ? -1 : a.o.it.name > b.o.it.name ? 1 : 0));
  const options: TypeOption[] = priced.slice(0, maxInstanceTypes).map((p) => p.o);

  const offerings = options.flatMap((o) => o.offerings.filter(match));
  const cheapestOnDemand = Math.min(...offerings.filter((x) => x.capacityType === CapacityType.onDemand).map((x) => x.price));
  let capacityType: CapacityTypeValue = CapacityType.onDemand;
  for (const ct of CAPACITY_ORDER) {
    const of = offerings.filter((x) => x.capacityType === ct && (ct !== CapacityType.spot || x.price <= cheapestOnDemand || !Number.isFinite(cheapestOnDemand)));
    if (of.length > 0) { capacityType = ct; break; }
  }
  const price = Math.min(...offerings.filter((x) => x.capacityType === capacityType).map((x) => x.price));

  const zoneReq = reqs.get(Label.zone);
  const zone = zoneReq && !zoneReq.complement && zoneReq.values.size === 1 ? (zoneReq.values.values().next().value as string) : null;

  const daemon: ResourceList = {};
  options.forEach((o, i) => {
    if (i === 0) Object.assign(daemon, o.daemon);
    else for (const k of Object.keys(daemon)) daemon[k] = Math.min(daemon[k], o.daemon[k] ?? 0);
  });
  const requests: ResourceList = { ...claim.requests };
  for (const k in daemon) requests[k] = (requests[k] ?? 0) + daemon[k];

  const out = reqs.clone();
  out.byKey.delete(Label.hostname);
  out.byKey.set(Label.instanceType, Requirement.in(Label.instanceType, options.map((o) => o.it.name)));
  const offeredTypes = new Set(offerings.map((x) => x.capacityType));
  const ctReq = out.get(Label.capacityType);
  const allowed = [...offeredTypes].filter((c) => !ctReq || ctReq.has(c));
  out.byKey.set(Label.capacityType, Requirement.in(Label.capacityType, allowed));
  const requirements = out.toNodeSelector().map((r) => (r.key === Label.instanceType ? { ...r, values: options.map((o) => o.it.name) } : r));

  const labels: Record<string, string> = { ...claim.template.labels };
  for (const [k, v] of Object.entries(out.labels())) if (k !== Label.instanceType || options.length === 1) labels[k] = v;

  return {
    hostname: claim.hostname,
    nodePool: claim.template.pool.name,
    instanceTypes: options.map((o) => o.it),
    requirements,
    capacityType,
    zone,
    pods: claim.pods.map((s) => s.pod),
    requests,
    daemonOverhead: daemon,
    price: Number.isFinite(price) ? price : 0,
    labels,
    taints: claim.template.taints,
    startupTaints: claim.template.startupTaints,
    nodeClassRef: claim.template.pool.template.nodeClassRef,
    expireAfter: claim.template.pool.template.expireAfter,
    terminationGracePeriod: claim.template.pool.template.terminationGracePeriod,
    minValuesRelaxed: claim.minValuesRelaxed || undefined,
  };
}
