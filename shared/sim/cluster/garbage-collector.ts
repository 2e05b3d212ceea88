/**
 * kube-controller-manager's garbage collector, as kubectl's default (background) propagation sees it: once every
 * owner an object names in `metadata.ownerReferences` is gone, the object is deleted (finalizers honoured, so a
 * NodeClaim owned by a deleted NodePool drains through `karpenter.sh/termination`). Indexed by owner uid, so a
 * deletion costs its dependents, not the cluster.
 */
import type { VirtualClock } from '../clock';
import type { KubeStore } from '../kube/store';
import type { ChangeEvent, KubeObject, ResourceType } from '../kube/types';

interface Dependent {
  rt: ResourceType;
  namespace?: string;
  name: string;
  owners: string[];
}

const ownerUids = (o: KubeObject): string[] =>
  ((o.metadata.ownerReferences ?? []) as { uid?: unknown }[]).map((r) => r.uid).filter((u): u is string => typeof u === 'string' && u !== '');

const refKey = (rt: ResourceType, o: KubeObject) => `${rt.group}/${rt.resource}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Starts the collector; returns its stop function. Deletions happen at the current virtual time, after the write settles. */
export function startGarbageCollector(clock: VirtualClock, store: KubeStore): () => void {
  const live = new Set<string>();
  const byOwner = new Map<string, Map<string, Dependent>>();
  const owned = new Map<string, Dependent>();

  const unindex = (key: string) => {
    const d = owned.get(key);
    if (!d) return;
    owned.delete(key);
    for (const u of d.owners) byOwner.get(u)?.delete(key);
  };
  const index = (e: ChangeEvent) => {
    const key = refKey(e.resource, e.object);
    unindex(key);
    const owners = ownerUids(e.object);
    if (owners.length === 0) return;
    const d: Dependent = { rt: e.resource, namespace: e.object.metadata.namespace, name: e.object.metadata.name ?? '', owners };
    owned.set(key, d);
    for (const u of owners) {
      let m = byOwner.get(u);
      if (!m) byOwner.set(u, (m = new Map()));
      m.set(key, d);
    }
  };
  const collect = (d: Dependent) => {
    if (d.owners.some((u) => live.has(u))) return;
    try {
      store.delete(d.rt, d.namespace, d.name);
    } catch {
      // Already gone (or being deleted): nothing to collect.
    }
  };

  const unsubscribe = store.onChange((e) => {
    const uid = e.object.metadata.uid;
    if (e.type === 'DELETED') {
      if (uid) live.delete(uid);
      unindex(refKey(e.resource, e.object));
      const dependents = uid ? byOwner.get(uid) : undefined;
      if (uid) byOwner.delete(uid);
      if (dependents?.size) {
        const list = [...dependents.values()];
        clock.after(0, () => list.forEach(collect));
      }
      return;
    }
    if (uid) live.add(uid);
    index(e);
  });
  return unsubscribe;
}
