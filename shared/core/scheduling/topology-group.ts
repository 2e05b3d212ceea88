/** A topology group: the pods its selector matches, counted per domain of one key (see topology.ts). */
import type { Pod, Taint, Toleration } from '../model/kube';
import type { Requirements } from './requirements';
import { type LabelMatcher, untoleratedTaint } from './selectors';

export type GroupType = 'spread' | 'affinity' | 'anti-affinity';

/** Whether a claim could still launch in a domain (e.g. some fitting instance type is offered in the zone). */
export type DomainFilter = (key: string, domain: string) => boolean;

/** Domains a NodePool's nodes could have (per key), with the pool's taints (for nodeTaintsPolicy Honor). */
export interface PoolDomains {
  taints: readonly Taint[];
  domains: ReadonlyMap<string, ReadonlySet<string>>;
}
/** An existing node as a source of domains. */
export interface NodeDomains {
  labels: Record<string, string>;
  taints: readonly Taint[];
}

/** Where a placed pod lands, for a spread's node filter: does it match a filter, and what are its taints. */
export interface Placement {
  matches: (filter: Requirements) => boolean;
  taints: readonly Taint[];
}

export const hardTaints = (taints: readonly Taint[]) => taints.filter((t) => t.effect !== 'PreferNoSchedule');

export class TopologyGroup {
  readonly counts = new Map<string, number>();
  /** Rejection messages, built once (the scheduler's hot path must not allocate them per check). */
  readonly reasons: { anti: string; inverse: string; spread: string; affinityMissing: string; affinityElsewhere: string };
  /** Anti-affinity: domains where pods owning this term are (or may be): matching pods must avoid them. */
  readonly ownerDomains = new Set<string>();
  constructor(
    readonly id: number,
    readonly type: GroupType,
    readonly key: string,
    readonly namespaces: ReadonlySet<string> | 'all',
    readonly matcher: LabelMatcher,
    readonly maxSkew: number,
    readonly minDomains: number | undefined,
    /** nodeAffinityPolicy Honor: only pods on nodes matching one of these (nodeSelector ∧ a required term) count. */
    readonly nodeFilter: Requirements[] | undefined,
    /** nodeTaintsPolicy Honor: the owner's tolerations; only nodes whose taints they tolerate count. */
    readonly taintFilter: { tolerations: readonly Toleration[] } | undefined,
  ) {
    this.reasons = {
      anti: `would violate pod anti-affinity on ${key}`,
      inverse: `would violate pod anti-affinity of an existing pod on ${key}`,
      spread: `would violate topology spread (${key}, maxSkew ${maxSkew})`,
      affinityMissing: `no pod matching the required pod affinity on ${key}`,
      affinityElsewhere: `pod affinity on ${key} points to another domain`,
    };
  }

  selects(pod: Pod): boolean {
    return (this.namespaces === 'all' || this.namespaces.has(pod.namespace)) && this.matcher(pod.labels);
  }
  /**
   * Pod affinity: does this group rule out a domain holding none of its pods for `owner`? It does when one runs
   * elsewhere, or when `owner` would not select itself (so it cannot be the first).
   */
  rulesOutEmptyDomains(owner: Pod): boolean {
    for (const n of this.counts.values()) if (n > 0) return true;
    return !this.selects(owner);
  }
  count(domain: string): number {
    return this.counts.get(domain) ?? 0;
  }
  add(domain: string): void {
    this.counts.set(domain, (this.counts.get(domain) ?? 0) + 1);
  }
  /** Does a pod on a node with these taints (and matching `matches`) count for this group? */
  countsOn(p: Placement): boolean {
    if (this.nodeFilter && !this.nodeFilter.some(p.matches)) return false;
    return !this.taintFilter || !untoleratedTaint(this.taintFilter, hardTaints(p.taints));
  }
  /** A spread's own domains when a node filter applies (filled by the Topology, grown by registerDomain). */
  universe?: Set<string>;
}
