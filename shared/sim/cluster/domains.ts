/**
 * The simulated kube-scheduler's view of one pass's bound pods by topology domain, kept as pods are placed: the pods
 * in a node's domain and the required anti-affinity terms of the pods there, without scanning every node for every
 * candidate.
 */
import type { Node, Pod, PodAffinityTerm } from '../../core/model/kube';
import type { KubeObject } from '../kube/types';

/** A node as one scheduling pass counts it: what is bound there and what that uses; `index` in name order, `version` bumped on every placement. */
export interface NodeState {
  node: Node;
  obj: KubeObject;
  used: Record<string, number>;
  pods: Pod[];
  /** Of `pods` at the pass's start, those with required anti-affinity terms (the bound-pods cache keeps them). */
  antiAffinityPods?: Pod[];
  index: number;
  version: number;
}

export class Domains {
  /** topology key → domain value → the pods bound there (built on first use of the key). */
  private readonly pods = new Map<string, Map<string, Pod[]>>();
  /** topology key → domain value → the required anti-affinity terms (of that key) of the pods bound there. */
  private readonly anti = new Map<string, Map<string, { term: PodAffinityTerm; owner: Pod }[]>>();

  /** `held`: pods counted on a node without being bound there (nominated pods' room): no pod (anti-)affinity of theirs counts. */
  constructor(
    private readonly all: NodeState[],
    private readonly held: ReadonlyMap<Pod, unknown> = new Map(),
  ) {
    for (const n of all) for (const p of n.antiAffinityPods ?? n.pods) if (!held.has(p)) this.indexAnti(n, p);
  }

  /** Whether any bound pod has a required anti-affinity term (which every other pod is then checked against). */
  hasAntiTerms(): boolean {
    return this.anti.size > 0;
  }

  /** The pods bound in the node's domain of `key` (none when the node has no such label). */
  podsIn(key: string, n: NodeState): Pod[] {
    const value = n.node.labels[key];
    if (value === undefined) return [];
    let byValue = this.pods.get(key);
    if (!byValue) {
      this.pods.set(key, (byValue = new Map()));
      for (const o of this.all) for (const p of o.pods) if (!this.held.has(p)) this.add(byValue, o.node.labels[key], p);
    }
    return byValue.get(value) ?? [];
  }

  /** The required anti-affinity terms of bound pods whose domain contains the node. */
  *antiTermsAt(n: NodeState): Generator<{ term: PodAffinityTerm; owner: Pod }> {
    for (const [key, byValue] of this.anti) {
      const value = n.node.labels[key];
      if (value !== undefined) yield* byValue.get(value) ?? [];
    }
  }

  placed(n: NodeState, pod: Pod): void {
    for (const [key, byValue] of this.pods) this.add(byValue, n.node.labels[key], pod);
    this.indexAnti(n, pod);
  }

  private indexAnti(n: NodeState, pod: Pod): void {
    for (const term of pod.affinity?.podAntiAffinity?.required ?? []) {
      let byValue = this.anti.get(term.topologyKey);
      if (!byValue) this.anti.set(term.topologyKey, (byValue = new Map()));
      this.add(byValue, n.node.labels[term.topologyKey], { term, owner: pod });
    }
  }

  private add<T>(byValue: Map<string, T[]>, value: string | undefined, item: T): void {
    if (value === undefined) return;
    const list = byValue.get(value);
    if (list) list.push(item);
    else byValue.set(value, [item]);
  }
}
