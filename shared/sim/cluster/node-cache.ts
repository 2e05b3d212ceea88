/**
 * The simulated kube-scheduler's nodes, kept across passes as the real scheduler keeps its snapshot from its
 * informers: each node's state (its model, what is bound there and what that uses) and the pass's fit caches are
 * carried from one pass to the next, and only the nodes written since (the Node itself, or a pod bound to it or
 * leaving it) are read again. A node added or removed renumbers the nodes: the states are rebuilt then.
 */
import { nodeFromKube } from '../../core/model/from-kube';
import type { Node } from '../../core/model/kube';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { boundPods, boundTo } from './bound-pods';
import type { NodeState } from './domains';
import { FitPass } from './fit-cache';
import { kubeTypes } from './kube-objects';

/** A stored object is never changed in place: each node's model is read once, however many passes see it. */
const nodeModels = new WeakMap<KubeObject, Node>();
const nodeModel = (obj: KubeObject): Node => {
  let m = nodeModels.get(obj);
  if (!m) nodeModels.set(obj, (m = nodeFromKube(obj as never)));
  return m;
};

/** How many placements the fit caches may carry (at most this many times the nodes) before they are started again. */
const CARRY_FACTOR = 4;

export interface PassNodes {
  /** The nodes by name (localeCompare), each with its index there. */
  sorted: NodeState[];
  /** Where pods of each shape fit, up to date with every node written since it was built. */
  fit: FitPass;
}

class NodeCache {
  private byName = new Map<string, NodeState>();
  private sorted: NodeState[] = [];
  private fit = new FitPass([]);
  /** A node was added or removed: the states and fit caches are rebuilt at the next pass. */
  private renumber = true;
  /** The nodes written, or whose bound pods changed, since the last pass. */
  private readonly stale = new Set<string>();

  constructor(private readonly store: KubeStore) {
    store.onChangeFirst((e) => {
      const r = e.resource;
      if (r.group !== '') return;
      if (r.resource === 'nodes') {
        if (e.type === 'MODIFIED') this.stale.add(e.object.metadata.name as string);
        else this.renumber = true;
      } else if (r.resource === 'pods') {
        const before = e.type === 'ADDED' ? undefined : boundTo(e.old ?? e.object);
        const after = e.type === 'DELETED' ? undefined : boundTo(e.object);
        if (before !== undefined) this.stale.add(before);
        if (after !== undefined) this.stale.add(after);
      }
    });
  }

  touch(name: string): void {
    this.stale.add(name);
  }

  /** The nodes for a pass, each as stored now with what is bound to it now. */
  nodes(): PassNodes {
    if (this.renumber || this.fit.changed.length > CARRY_FACTOR * this.sorted.length + 1_000) this.rebuild();
    else for (const name of this.stale) this.refresh(name);
    this.stale.clear();
    return { sorted: this.sorted, fit: this.fit };
  }

  private rebuild(): void {
    const types = kubeTypes(this.store);
    this.sorted = this.store
      .scan(types.node)
      .map((obj): NodeState => ({ obj, node: nodeModel(obj), ...boundPods(this.store, obj.metadata.name as string), index: 0, version: 0 }))
      .sort((a, b) => a.node.name.localeCompare(b.node.name));
    this.sorted.forEach((n, i) => (n.index = i));
    this.byName = new Map(this.sorted.map((n) => [n.node.name, n]));
    this.fit = new FitPass(this.sorted);
    this.renumber = false;
  }

  /** The node read again: its object and its bound pods (a pass may have placed on it: the cache's sums replace its own). */
  private refresh(name: string): void {
    const n = this.byName.get(name);
    if (!n) return;
    const obj = this.store.peek(kubeTypes(this.store).node, undefined, name) as KubeObject | undefined;
    if (!obj) return;
    n.obj = obj;
    n.node = nodeModel(obj);
    Object.assign(n, boundPods(this.store, name));
    this.fit.nodeChanged(n);
  }
}

const caches = new WeakMap<KubeStore, NodeCache>();

/** Nodes a pass counted more on than is bound there (nominated pods' held room): read again at the next pass. */
export function touchNodes(store: KubeStore, names: Iterable<string>): void {
  const c = caches.get(store);
  if (c) for (const n of names) c.touch(n);
}

/** The store's nodes for a scheduling pass (the cache is made, and starts listening to the store, on first use). */
export function passNodes(store: KubeStore): PassNodes {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = new NodeCache(store)));
  return c.nodes();
}
