/**
 * A sound shortcut before the scheduler simulation (nodewright, for large clusters): the pods that fit on
 * no other node individually must all go to the one new node, so if the cheapest type that could hold
 * them all is not cheaper than the candidates, neither delete nor replace is possible. Everything this
 * ignores (taints, affinity, topology, DaemonSets, pending pods) only makes fitting harder, so a rejection
 * here is always one the simulation would also make.
 */
import type { InstanceType } from '../instance-types/types';
import { podKey } from '../model/kube';
import { Label } from '../model/labels';
import type { ResourceList } from '../model/resources';
import type { ClusterView } from './candidates';
import { schedulingBase } from './simulate';
import type { Candidate } from './types';

interface Room {
  name: string;
  free: ResourceList;
}
interface Cache {
  rooms: Room[];
  maxFree: ResourceList;
  types: { it: InstanceType; price: number }[];
}
const caches = new WeakMap<ClusterView, Cache>();

function cache(view: ClusterView): Cache {
  let c = caches.get(view);
  if (c) return c;
  const rooms: Room[] = [];
  const maxFree: ResourceList = {};
  for (const n of schedulingBase(view).existingNodes) {
    if (!n.initialized || n.markedForDeletion || n.inFlight) continue;
    const free: ResourceList = { ...n.allocatable };
    for (const p of n.pods) {
      for (const k in p.requests) free[k] = (free[k] ?? 0) - p.requests[k];
      free.pods = (free.pods ?? 0) - 1;
    }
    rooms.push({ name: n.name, free });
    for (const k in free) if (free[k] > (maxFree[k] ?? -Infinity)) maxFree[k] = free[k];
  }
  // Per pool, the cheapest offering its capacity-type requirement allows (a lower bound for any claim).
  const types: Cache['types'] = [];
  for (const pool of view.input.snapshot.nodePools) {
    if (pool.deleting || pool.ready === false) continue;
    const ctReq = pool.template.requirements.find((r) => r.key === Label.capacityType);
    const allows = (ct: string) =>
      !ctReq || (ctReq.operator === 'In' ? (ctReq.values ?? []).includes(ct) : ctReq.operator === 'NotIn' ? !(ctReq.values ?? []).includes(ct) : true);
    for (const it of view.input.instanceTypes[pool.name] ?? []) {
      let price = Infinity;
      for (const o of it.offerings) if (o.available && allows(o.capacityType) && o.price < price) price = o.price;
      if (Number.isFinite(price)) types.push({ it, price });
    }
  }
  types.sort((a, b) => a.price - b.price);
  c = { rooms, maxFree, types };
  caches.set(view, c);
  return c;
}

const fitsIn = (req: ResourceList, free: ResourceList) => {
  for (const k in req) if (req[k] > 0 && req[k] > (free[k] ?? 0)) return false;
  return (free.pods ?? Infinity) >= 1;
};

/** Why consolidating these candidates is impossible without simulating, or undefined when unsure. */
export function cannotConsolidate(view: ClusterView, candidates: Candidate[]): string | undefined {
  const { rooms, maxFree, types } = cache(view);
  const excluded = new Set(candidates.map((c) => c.node.name));
  const need: ResourceList = {};
  let homeless = 0;
  let example = '';
  for (const c of candidates) {
    for (const p of c.pods) {
      const quick = !fitsIn(p.requests, maxFree);
      if (!quick && rooms.some((r) => !excluded.has(r.name) && fitsIn(p.requests, r.free))) continue;
      for (const k in p.requests) need[k] = (need[k] ?? 0) + p.requests[k];
      homeless++;
      example ||= podKey(p);
    }
  }
  if (homeless === 0) return undefined;
  need.pods = homeless;
  const total = candidates.reduce((s, c) => s + c.price, 0);
  const cheapest = types.find((t) => Object.keys(need).every((k) => (t.it.allocatable[k] ?? 0) >= need[k]));
  if (cheapest && cheapest.price < total) return undefined;
  return `pods don't fit elsewhere and no cheaper node can hold them: ${homeless} pod(s) (e.g. ${example}) fit on no other node, and ${cheapest ? `the cheapest type that holds them all (${cheapest.it.name}, $${cheapest.price.toFixed(4)}/h)` : 'no instance type that holds them all'} is not below $${total.toFixed(4)}/h`;
}
