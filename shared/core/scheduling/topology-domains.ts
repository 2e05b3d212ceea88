/**
 * Choosing a domain for one topology group (docs/karpenter-reference.md §2.6): given the domains a claim or node
 * still allows for the group's key, which one the pod may take — the least loaded within maxSkew for a spread,
 * one holding a matching pod for affinity, an empty one for anti-affinity. Pinning a single domain (rather than
 * leaving the choice open) lets independent replicas launch in parallel.
 */
import { Label } from '../model/labels';
import type { PodState } from './pod-data';
import { Requirement, type Requirements } from './requirements';
import type { DomainFilter, TopologyGroup } from './topology-group';

const EXISTS_CACHE = new Map<string, Requirement>();
/** `key Exists`, one shared instance per key (the hot path must not build one per check). */
export function exists(key: string): Requirement {
  let r = EXISTS_CACHE.get(key);
  if (!r) {
    r = Requirement.exists(key);
    EXISTS_CACHE.set(key, r);
  }
  return r;
}

/** The one domain `reqs` pins `key` to, or undefined. */
export function pinned(reqs: Requirements, key: string): string | undefined {
  const r = reqs.get(key);
  if (!r || r.complement || r.values.size !== 1) return undefined;
  return r.values.values().next().value as string;
}

/**
 * A spread: the least loaded allowed domain whose count stays within maxSkew of the minimum (ties by name).
 * `universe` is the spread's domains (under its node filter). Returns undefined when `nodeDomains` already
 * pins one acceptable domain.
 */
export function nextDomainSpread(
  g: TopologyGroup,
  s: PodState,
  nodeDomains: Requirement,
  universe: ReadonlySet<string>,
  feasible?: DomainFilter,
): Requirement | string | undefined {
  const podDomains = s.strictRequirements.get(g.key) ?? exists(g.key);
  let min = 0;
  if (g.key !== Label.hostname) {
    min = Infinity;
    let supported = 0;
    for (const d of universe) {
      if (!podDomains.has(d)) continue;
      supported++;
      const c = g.count(d);
      if (c < min) min = c;
    }
    if (min === Infinity || (g.minDomains !== undefined && supported < g.minDomains)) min = 0;
  }
  const self = g.selects(s.pod) ? 1 : 0;
  let best: string | undefined;
  let bestCount = Infinity;
  const consider = (d: string) => {
    if (!universe.has(d) || !podDomains.has(d) || (feasible && !feasible(g.key, d))) return;
    const c = g.count(d) + self;
    if (c - min <= g.maxSkew && (c < bestCount || (c === bestCount && best !== undefined && d < best))) {
      best = d;
      bestCount = c;
    }
  };
  if (!nodeDomains.complement) for (const d of nodeDomains.values) consider(d);
  else for (const d of universe) if (nodeDomains.has(d)) consider(d);
  if (best === undefined) return g.reasons.spread;
  if (!nodeDomains.complement && nodeDomains.values.size === 1) return undefined;
  return Requirement.in(g.key, [best]);
}

/** Affinity: the domains holding a matching pod; a pod matching its own term bootstraps the first allowed domain. */
export function nextDomainAffinity(
  g: TopologyGroup,
  s: PodState,
  nodeDomains: Requirement,
  universe: ReadonlySet<string>,
  feasible?: DomainFilter,
): Requirement | string | undefined {
  const podDomains = s.strictRequirements.get(g.key) ?? exists(g.key);
  const options: string[] = [];
  for (const [d, c] of g.counts) if (c > 0 && podDomains.has(d)) options.push(d);
  // Bootstrap a self-selecting group only while none of its pods runs anywhere: once one does, kube-scheduler puts the
  // next in that pod's domain, so a domain the pod cannot reach is no place to start another (Karpenter also
  // bootstraps when the running pods are outside the pod's domains, which kube-scheduler then refuses).
  if (options.length === 0 && g.selects(s.pod) && !g.rulesOutEmptyDomains(s.pod)) {
    let pick: string | undefined;
    if (!nodeDomains.complement) {
      for (const d of [...nodeDomains.values].sort())
        if (universe.has(d) && podDomains.has(d) && (!feasible || feasible(g.key, d))) {
          pick = d;
          break;
        }
    } else {
      for (const d of [...universe].sort())
        if (podDomains.has(d) && nodeDomains.has(d) && (!feasible || feasible(g.key, d))) {
          pick = d;
          break;
        }
    }
    if (pick !== undefined) options.push(pick);
  }
  if (options.length === 0) return g.reasons.affinityMissing;
  const r = Requirement.in(g.key, options);
  if (!nodeDomains.intersects(r)) return g.reasons.affinityElsewhere;
  return r;
}

/** Anti-affinity: the first allowed domain (by name) with no matching pod; undefined when `nodeDomains` pins an empty one. */
export function nextDomainAnti(
  g: TopologyGroup,
  s: PodState,
  nodeDomains: Requirement,
  universe: ReadonlySet<string>,
  feasible?: DomainFilter,
): Requirement | string | undefined {
  const podDomains = s.strictRequirements.get(g.key) ?? exists(g.key);
  if (!nodeDomains.complement && nodeDomains.values.size === 1) {
    const d = nodeDomains.values.values().next().value as string;
    return g.count(d) === 0 && podDomains.has(d) ? undefined : g.reasons.anti;
  }
  const candidates = !nodeDomains.complement ? [...nodeDomains.values] : [...universe].filter((d) => nodeDomains.has(d));
  candidates.sort();
  for (const d of candidates) if (podDomains.has(d) && g.count(d) === 0 && (!feasible || feasible(g.key, d))) return Requirement.in(g.key, [d]);
  return g.reasons.anti;
}
