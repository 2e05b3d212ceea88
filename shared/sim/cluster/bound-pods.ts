/**
 * The simulated kube-scheduler's cache of what is bound to each node (as the real one keeps it from its informers):
 * kept from the store's writes, so a scheduling pass reads the nodes and the pending pods, not every pod. A node's
 * pods and usage are summed again only after one of its pods changed, in LIST order (the same sums as a full scan).
 */
import { podFromKube } from '../../core/model/from-kube';
import type { Pod } from '../../core/model/kube';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { isLivePod, kubeTypes, podNodeName } from './kube-objects';

/**
 * Stored objects are never changed in place (a write stores a new object), so each one's model is read once,
 * however many passes see it.
 */
const podModels = new WeakMap<KubeObject, Pod>();
export const podModel = (obj: KubeObject): Pod => {
  let m = podModels.get(obj);
  if (!m) podModels.set(obj, (m = podFromKube(obj as never)));
  return m;
};

/** What a node counts: its live, bound pods not being deleted. */
export const boundTo = (obj: KubeObject | undefined): string | undefined =>
  obj && isLivePod(obj) && !obj.metadata.deletionTimestamp ? podNodeName(obj) : undefined;

interface NodePods {
  /** By `namespace/name`. */
  pods: Map<string, Pod>;
  /** The pods in LIST order and what they use, until one of them changes. */
  sum?: BoundSum;
}

/** What is bound to a node: its pods in LIST order, what they use, and those of them with required anti-affinity. */
interface BoundSum {
  pods: Pod[];
  used: Record<string, number>;
  antiAffinityPods: Pod[];
}

/** The pod counted on the node: one more pod slot and its requests used. */
export function place(n: { pods: Pod[]; used: Record<string, number> }, pod: Pod): void {
  n.pods.push(pod);
  n.used.pods = (n.used.pods ?? 0) + 1;
  for (const [r, q] of Object.entries(pod.requests)) if (r !== 'pods') n.used[r] = (n.used[r] ?? 0) + q;
}

/** The pod no longer counted on the node (a nominated pod's held room, released as the pod itself is placed). */
export function unplace(n: { pods: Pod[]; used: Record<string, number> }, pod: Pod): void {
  const i = n.pods.indexOf(pod);
  if (i < 0) return;
  n.pods.splice(i, 1);
  n.used.pods = (n.used.pods ?? 0) - 1;
  for (const [r, q] of Object.entries(pod.requests)) if (r !== 'pods') n.used[r] = (n.used[r] ?? 0) - q;
}

const caches = new WeakMap<KubeStore, Map<string, NodePods>>();

function cacheOf(store: KubeStore): Map<string, NodePods> {
  let byNode = caches.get(store);
  if (byNode) return byNode;
  const nodes = (byNode = new Map<string, NodePods>());
  caches.set(store, nodes);
  const drop = (node: string | undefined, key: string) => {
    const n = node === undefined ? undefined : nodes.get(node);
    if (!n?.pods.delete(key)) return;
    n.sum = undefined;
    if (n.pods.size === 0) nodes.delete(node as string);
  };
  const add = (node: string | undefined, key: string, obj: KubeObject) => {
    if (node === undefined) return;
    let n = nodes.get(node);
    if (!n) nodes.set(node, (n = { pods: new Map() }));
    n.pods.set(key, podModel(obj));
    n.sum = undefined;
  };
  store.onChangeFirst((e) => {
    if (e.resource.group !== '' || e.resource.resource !== 'pods') return;
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (e.type !== 'ADDED') drop(boundTo(e.old ?? e.object), key);
    if (e.type !== 'DELETED') add(boundTo(e.object), key, e.object);
  });
  for (const obj of store.scan(kubeTypes(store).pod)) add(boundTo(obj), `${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  return nodes;
}

/** What is bound to the node now: its pods (LIST order) and their usage, shared until the node changes: a pass copies before it adds. */
export function boundPods(store: KubeStore, node: string): BoundSum {
  const n = cacheOf(store).get(node);
  if (!n) return { pods: [], used: {}, antiAffinityPods: [] };
  // Read-only to the caller.
  if (!n.sum) {
    const sum: BoundSum = { pods: [], used: {}, antiAffinityPods: [] };
    for (const key of [...n.pods.keys()].sort()) place(sum, n.pods.get(key) as Pod);
    sum.antiAffinityPods = sum.pods.filter((p) => (p.affinity?.podAntiAffinity?.required?.length ?? 0) > 0);
    n.sum = sum;
  }
  return n.sum;
}
