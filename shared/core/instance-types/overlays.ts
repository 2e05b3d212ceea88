/**
 * NodeOverlays (karpenter.sh/v1alpha1; Karpenter's designs/node-overlay.md and pkg/controllers/nodeoverlay): a price,
 * a price adjustment or extra extended resources for the (NodePool, instance type, offering) triples an overlay's
 * requirements match. Overlays are taken by weight, highest first (equal weights: the name later in the alphabet
 * first); a higher weight's value wins, a lower one only fills what is still unset. Two overlays of the same weight
 * that set the same value on the same offering (price) or the same resource of the same type (capacity) conflict: the
 * second is not applied anywhere (all or nothing) and its ValidationSucceeded condition says which one it met.
 */
import type { NodeOverlay, NodePool } from '../model/karpenter';
import { Label } from '../model/labels';
import type { ResourceList } from '../model/resources';
import { Requirement } from '../scheduling/requirements';
import type { InstanceType, Offering } from './types';

/** Why an overlay is not applied: its ValidationSucceeded=False reason and message. */
interface OverlayRejection {
  reason: 'Conflict' | 'RuntimeValidation';
  message: string;
}

interface PriceUpdate {
  change: string;
  overlay: string;
  lowestWeight: number;
  lowestOverlay: string;
}

interface CapacityUpdate {
  resources: ResourceList;
  /** The overlay that set each resource. */
  from: Record<string, string>;
  lowestWeight: number;
  lowestOverlay: string;
  lowestResources: ReadonlySet<string>;
}

interface TypeUpdate {
  prices: Map<string, PriceUpdate>;
  capacity?: CapacityUpdate;
}

export interface OverlayResolution {
  /** Per NodePool, per instance type name: what applies. */
  updates: Map<string, Map<string, TypeUpdate>>;
  /** Overlays not applied, by name. */
  rejected: Map<string, OverlayRejection>;
  /** Overlays applied to at least one offering or type, by name. */
  matched: Set<string>;
}

/** Karpenter's order: larger weight first; equal weights, the name later in the alphabet first. */
export function orderByWeight(overlays: readonly NodeOverlay[]): NodeOverlay[] {
  return [...overlays].sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

const offeringKey = (o: Offering): string => `${o.capacityType}/${o.zone}/${o.reservationId ?? ''}`;

/** The compiled requirements of an overlay (keys normalized by Requirement.from). */
const compile = (o: NodeOverlay): Requirement[] => o.requirements.map((r) => Requirement.from(r));

/**
 * The offerings of `it` in `pool` the overlay applies to ([] = none): the type (with the pool's name and template
 * labels, and the zones and capacity types of its offerings) must be compatible with every requirement — a key the
 * type does not have only passes NotIn / DoesNotExist — and then each offering's zone and capacity type must be allowed.
 */
function matchedOfferings(reqs: readonly Requirement[], pool: NodePool, it: InstanceType): Offering[] {
  for (const r of reqs) {
    if (r.key === Label.zone || r.key === Label.capacityType) {
      const values = it.offerings.map((o) => (r.key === Label.zone ? o.zone : o.capacityType));
      if (values.length === 0 ? !r.isNegative() : !values.some((v) => r.has(v))) return [];
      continue;
    }
    const value = r.key === Label.nodePool ? pool.name : (pool.template.labels[r.key] ?? it.labels[r.key]);
    if (!r.has(value)) return [];
  }
  return it.offerings.filter((o) => reqs.every((r) => (r.key === Label.zone ? r.has(o.zone) : r.key === Label.capacityType ? r.has(o.capacityType) : true)));
}

interface Target {
  pool: string;
  type: string;
  offerings: Offering[];
}

/** A conflict of `o` with what higher (or equal, earlier) overlays already set, described; undefined when none. */
function conflictOf(res: OverlayResolution, o: NodeOverlay, t: Target): string | undefined {
  const update = res.updates.get(t.pool)?.get(t.type);
  if (!update) return undefined;
  const where = `instance type ${t.type} in nodepool ${t.pool}`;
  if (o.price !== undefined || o.priceAdjustment !== undefined) {
    for (const of of t.offerings) {
      const p = update.prices.get(offeringKey(of));
      if (p && p.lowestWeight === o.weight) return `conflicts with NodeOverlay ${p.lowestOverlay} (same weight ${o.weight}) on the price of ${where}`;
    }
  }
  const c = update.capacity;
  const keys = Object.keys(o.capacity);
  if (c && keys.length > 0 && c.lowestWeight === o.weight) {
    const shared = keys.find((k) => c.lowestResources.has(k));
    if (shared) return `conflicts with NodeOverlay ${c.lowestOverlay} (same weight ${o.weight}) on ${shared} of ${where}`;
  }
  return undefined;
}

function store(res: OverlayResolution, o: NodeOverlay, t: Target): void {
  let byType = res.updates.get(t.pool);
  if (!byType) res.updates.set(t.pool, (byType = new Map()));
  let update = byType.get(t.type);
  if (!update) byType.set(t.type, (update = { prices: new Map() }));
  const change = o.price ?? o.priceAdjustment;
  if (change !== undefined) {
    for (const of of t.offerings) {
      const key = offeringKey(of);
      const p = update.prices.get(key);
      if (p) Object.assign(p, { lowestWeight: o.weight, lowestOverlay: o.name });
      else update.prices.set(key, { change, overlay: o.name, lowestWeight: o.weight, lowestOverlay: o.name });
    }
  }
  const keys = Object.keys(o.capacity);
  if (keys.length === 0) return;
  const c = (update.capacity ??= { resources: {}, from: {}, lowestWeight: o.weight, lowestOverlay: o.name, lowestResources: new Set() });
  for (const k of keys) {
    if (k in c.resources) continue;
    c.resources[k] = o.capacity[k];
    c.from[k] = o.name;
  }
  Object.assign(c, { lowestWeight: o.weight, lowestOverlay: o.name, lowestResources: new Set(keys) });
}

/**
 * Resolves the overlays against every pool's instance types (Karpenter's nodeoverlay controller): the updates to
 * apply per pool and type, and the overlays set aside. `invalid` are overlays read but not valid (set aside as
 * RuntimeValidation).
 */
export function resolveOverlays(
  overlays: readonly NodeOverlay[],
  pools: readonly NodePool[],
  typesByPool: Readonly<Record<string, readonly InstanceType[]>>,
): OverlayResolution {
  // Every round and pass resolves the same overlays against the same (cached) type arrays: the last result is kept
  // while the overlays' specs, the pools' names and labels and the type arrays stay the same.
  const key = JSON.stringify([overlays.map(({ observedConditions: _, ...spec }) => spec), pools.map((p) => [p.name, p.template.labels])]);
  const refs = pools.map((p) => typesByPool[p.name]);
  if (lastResolution?.key === key && lastResolution.refs.length === refs.length && lastResolution.refs.every((r, i) => r === refs[i]))
    return lastResolution.res;
  const res = resolve(overlays, pools, typesByPool);
  lastResolution = { key, refs, res };
  return res;
}

let lastResolution: { key: string; refs: (readonly InstanceType[] | undefined)[]; res: OverlayResolution } | undefined;

function resolve(
  overlays: readonly NodeOverlay[],
  pools: readonly NodePool[],
  typesByPool: Readonly<Record<string, readonly InstanceType[]>>,
): OverlayResolution {
  const res: OverlayResolution = { updates: new Map(), rejected: new Map(), matched: new Set() };
  for (const o of orderByWeight(overlays)) {
    const reqs = compile(o);
    const targets: Target[] = [];
    for (const pool of pools) {
      for (const it of typesByPool[pool.name] ?? []) {
        const offerings = matchedOfferings(reqs, pool, it);
        if (offerings.length > 0) targets.push({ pool: pool.name, type: it.name, offerings });
      }
    }
    // Validated against every pool before anything is stored: an overlay is applied everywhere or nowhere.
    let conflict: string | undefined;
    for (const t of targets) if ((conflict = conflictOf(res, o, t))) break;
    if (conflict) {
      res.rejected.set(o.name, { reason: 'Conflict', message: conflict });
      continue;
    }
    for (const t of targets) store(res, o, t);
    if (targets.length > 0) res.matched.add(o.name);
  }
  return res;
}

/** Karpenter's AdjustedPrice: an absolute price, a signed amount or a signed percentage; never below 0. */
export function adjustedPrice(price: number, change: string): number {
  if (change === '') return price;
  if (!change.startsWith('+') && !change.startsWith('-')) return Number(change);
  const adjusted = change.endsWith('%') ? price * (1 + Number(change.slice(0, -1)) / 100) : price + Number(change);
  return adjusted >= 0 ? adjusted : 0;
}

/** The last result per source array and pool updates: the same array back while nothing changed (the scheduler reuses its templates). */
const applied = new WeakMap<readonly InstanceType[], { res: OverlayResolution; pool: string; types: InstanceType[] }>();

/**
 * The pool's instance types with its overlays applied: copies of the types and offerings that change (an offering's
 * `price` overlaid, with `basePrice` and `priceOverlay` saying from what and by which overlay; extended resources
 * added to capacity and allocatable, `capacityOverlays` naming their overlays), the others shared.
 */
export function applyOverlays(res: OverlayResolution, pool: string, types: InstanceType[]): InstanceType[] {
  const byType = res.updates.get(pool);
  if (!byType || byType.size === 0) return types;
  const hit = applied.get(types);
  if (hit?.res === res && hit.pool === pool) return hit.types;
  const out = types.map((it) => {
    const u = byType.get(it.name);
    if (!u) return it;
    const copy: InstanceType = { ...it };
    if (u.prices.size > 0) {
      copy.offerings = it.offerings.map((o) => {
        const p = u.prices.get(offeringKey(o));
        return p ? { ...o, price: adjustedPrice(o.price, p.change), basePrice: o.price, priceOverlay: p.overlay } : o;
      });
    }
    if (u.capacity && Object.keys(u.capacity.resources).length > 0) {
      copy.capacity = { ...it.capacity, ...u.capacity.resources };
      copy.allocatable = { ...it.allocatable, ...u.capacity.resources };
      // Huge pages are reserved at boot out of the node's memory: kubelet reports them and takes them out of
      // allocatable memory, so the scheduler does too (Karpenter adds them without, and overcommits memory).
      const huge = Object.keys(u.capacity.resources)
        .filter((k) => k.startsWith('hugepages-'))
        .reduce((sum, k) => sum + u.capacity!.resources[k], 0);
      if (huge > 0) copy.allocatable.memory = Math.max(0, (it.allocatable.memory ?? 0) - huge);
      copy.capacityOverlays = [...new Set(Object.values(u.capacity.from))].sort();
    }
    return copy;
  });
  applied.set(types, { res, pool, types: out });
  return out;
}

/** True when any offering's price of these types comes from an overlay (the claim's `karpenter.sh/price-overlay-applied`). */
export const priceOverlaid = (types: readonly InstanceType[]): boolean => types.some((it) => it.offerings.some((o) => o.priceOverlay !== undefined));

/** True when any of these types has overlay capacity (the claim's `karpenter.sh/capacity-overlay-applied`). */
export const capacityOverlaid = (types: readonly InstanceType[]): boolean => types.some((it) => (it.capacityOverlays?.length ?? 0) > 0);

/**
 * One pool's types with the overlays that apply to it, for a use case that reads only that pool (a launch): overlays
 * whose ValidationSucceeded is False (a conflict found across all pools by the disruption pass) are left out.
 */
export function overlaidPoolTypes(overlays: readonly NodeOverlay[] | undefined, pool: NodePool | undefined, types: InstanceType[]): InstanceType[] {
  // A standalone NodeClaim (no NodePool) gets no overlays, as in Karpenter.
  if (!pool) return types;
  const valid = (overlays ?? []).filter((o) => !o.observedConditions?.some((c) => c.type === 'ValidationSucceeded' && c.status === 'False'));
  if (valid.length === 0) return types;
  return applyOverlays(resolveOverlays(valid, [pool], { [pool.name]: types }), pool.name, types);
}
