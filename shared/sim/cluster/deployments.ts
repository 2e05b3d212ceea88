/**
 * The Deployment controller, simulated. A Deployment's pods are `<name>-<i>`, owned by its ReplicaSet; the
 * indices carry no meaning. A missing pod (evicted, deleted) is replaced Pending under the lowest free name; on
 * scale down the surplus is chosen as kube's ReplicaSet controller chooses it (scale-down.ts); pods of an older
 * template are replaced within maxUnavailable.
 *
 * Like kube-controller-manager's, it works from what changed (its informers' events), not from the whole cluster at
 * every pass: a Deployment whose object or ReplicaSets were written is reconciled in full; otherwise only its pods
 * written since the last pass are looked at (the Deployment is topped up when it has fewer active pods than
 * `replicas`), and its active and ready counts are kept from the writes. A pass costs what changed, not the
 * Deployment's size.
 */
import type { KubeStore } from '../kube/store';
import type { ChangeEvent, KubeObject } from '../kube/types';
import {
  createPod,
  isReady,
  isRunning,
  LABEL,
  maxUnavailable,
  reconcileReplicaSets,
  templateHash,
  updateStatus,
  type DeploymentSpec,
} from './deployment-objects';
import { inKeyOrder, isActivePod as isActive, kubeTypes, ownerName, type KubeTypes } from './kube-objects';
import { deletionOrder } from './scale-down';

const DEPLOYMENT_LABEL = ['metadata', 'labels', LABEL];

/** The Deployment's own pod: owned by one of its ReplicaSets (`<deployment>-<hash>`). */
const ownedBy = (p: KubeObject, deployment: string): boolean => ownerName(p, 'ReplicaSet')?.startsWith(`${deployment}-`) ?? false;

/** What the controller knows between passes, kept from the store's writes (as its informers' caches). */
interface Tracking {
  /** Deployments (`namespace/name`) whose object or ReplicaSets were written: reconciled in full. */
  full: Set<string>;
  /** Pod names written since the last pass, by the Deployment they are (or were) labelled with. */
  pods: Map<string, Set<string>>;
  /** Deployments left with pods to replace or remove (a rolling update held by maxUnavailable). */
  unsettled: Set<string>;
  /** Bound, Running pods by the Deployment they are labelled with: the status's readyReplicas. */
  running: Map<string, Set<string>>;
  /** Active pods of the Deployment's ReplicaSets, by Deployment: what it has against `replicas`. */
  active: Map<string, Set<string>>;
  /** Per Deployment, an index below which every name `<name>-<i>` is taken (where the search for a free one starts). */
  lowestFree: Map<string, number>;
  /** A Deployment was deleted, or a pod labelled with a missing one appeared: owner garbage collection runs. */
  orphaned: boolean;
}

const tracked = new WeakMap<KubeStore, Tracking>();

/** Pods the controller deleted on purpose, by `namespace/name/uid`, until the observer asks or they are gone. */
const onPurpose = new WeakMap<KubeStore, Map<string, { ns: string; name: string; uid: string }>>();

const purposeKey = (p: KubeObject) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}/${p.metadata.uid ?? ''}`;

/**
 * Whether the Deployment controller deleted this pod on purpose (scale down, older template, Deployment deleted),
 * for the pod's DELETED event; the answer is given once.
 */
export function deletedByDeploymentController(store: KubeStore, pod: KubeObject): boolean {
  return onPurpose.get(store)?.delete(purposeKey(pod)) ?? false;
}

/** Deletes the pod, noted as on purpose first (its DELETED event is told inside store.delete). */
function deleteOnPurpose(store: KubeStore, types: KubeTypes, p: KubeObject): void {
  let noted = onPurpose.get(store);
  if (!noted) onPurpose.set(store, (noted = new Map()));
  const ns = p.metadata.namespace ?? 'default';
  const name = p.metadata.name ?? '';
  noted.set(purposeKey(p), { ns, name, uid: p.metadata.uid ?? '' });
  store.delete(types.pod, ns, name, { gracePeriodSeconds: 0, readOnly: true });
}

/** Forgets the pods noted as deleted on purpose that are gone (those still terminating stay noted). */
function forgetGone(store: KubeStore, types: KubeTypes): void {
  const noted = onPurpose.get(store);
  for (const [key, { ns, name, uid }] of noted ?? []) if (store.peek(types.pod, ns, name)?.metadata.uid !== uid) noted?.delete(key);
}

const add = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
};

const setMember = <K, V>(map: Map<K, Set<V>>, key: K, value: V, member: boolean) => (member ? add(map, key, value) : map.get(key)?.delete(value));

/** Keeps `t` from every write to the store, from now on. */
function track(store: KubeStore, types: KubeTypes, t: Tracking): void {
  store.onChangeFirst((e: ChangeEvent) => {
    const { group, resource } = e.resource;
    const meta = e.object.metadata;
    const ns = meta.namespace ?? 'default';
    const name = meta.name ?? '';
    const cut = name.lastIndexOf('-');
    if (group === 'apps' && resource === 'deployments') {
      // Its own status writes change nothing it reads.
      if (e.type !== 'MODIFIED' || JSON.stringify(e.old?.spec) !== JSON.stringify(e.object.spec)) t.full.add(`${ns}/${name}`);
      if (e.type === 'DELETED') t.orphaned = true;
    } else if (group === 'apps' && resource === 'replicasets') {
      // `<deployment>-<hash>`
      if (cut > 0) t.full.add(`${ns}/${name.slice(0, cut)}`);
    } else if (group === '' && resource === 'pods') {
      // A name `<deployment>-<i>` freed: the search for a free name starts there at most.
      const low = cut > 0 && e.type === 'DELETED' ? t.lowestFree.get(`${ns}/${name.slice(0, cut)}`) : undefined;
      if (low !== undefined && /^\d+$/.test(name.slice(cut + 1))) t.lowestFree.set(`${ns}/${name.slice(0, cut)}`, Math.min(low, Number(name.slice(cut + 1))));
      // The Deployment it is labelled with (before and after).
      const [before, after] = [e.old?.metadata.labels?.[LABEL], meta.labels?.[LABEL]];
      if (before && before !== after) {
        add(t.pods, `${ns}/${before}`, name);
        t.running.get(`${ns}/${before}`)?.delete(name);
        t.active.get(`${ns}/${before}`)?.delete(name);
      }
      if (!after) return;
      add(t.pods, `${ns}/${after}`, name);
      setMember(t.running, `${ns}/${after}`, name, e.type !== 'DELETED' && isRunning(e.object));
      setMember(t.active, `${ns}/${after}`, name, e.type !== 'DELETED' && isActive(e.object) && ownedBy(e.object, after));
      if (e.type === 'ADDED' && !store.peek(types.deployment, ns, after)) t.orphaned = true;
    }
  });
}

/** Pods and ReplicaSets of a Deployment that no longer exists go too (garbage collection by owner). */
function collectDeletedDeployments(store: KubeStore, types: KubeTypes): number {
  const rsType = store.typeOf('apps/v1', 'ReplicaSet');
  const live = new Set(store.scan(types.deployment).map((d) => `${d.metadata.namespace}/${d.metadata.name}`));
  let changes = 0;
  // The pods labelled with a Deployment's name, by the store's index on the label: only those of a gone one are read.
  const labelled = store
    .fieldValues(types.pod, DEPLOYMENT_LABEL)
    .filter((owner) => owner !== '')
    .flatMap((owner) => store.scanWhere(types.pod, DEPLOYMENT_LABEL, owner).filter((p) => !live.has(`${p.metadata.namespace}/${owner}`)));
  for (const p of inKeyOrder(labelled)) {
    const owner = p.metadata.labels?.[LABEL];
    if (owner && !live.has(`${p.metadata.namespace}/${owner}`) && !p.metadata.deletionTimestamp) {
      deleteOnPurpose(store, types, p);
      changes++;
    }
  }
  for (const rs of store.scan(rsType)) {
    const owner = ownerName(rs, 'Deployment');
    if (owner && !live.has(`${rs.metadata.namespace}/${owner}`)) {
      store.delete(rsType, rs.metadata.namespace, rs.metadata.name ?? '');
      changes++;
    }
  }
  return changes;
}

/** Creates `count` pods of the current template, each under the lowest name `<name>-<i>` no pod in the store has. */
function createPods(store: KubeStore, types: KubeTypes, t: Tracking, d: KubeObject, key: string, hash: string, count: number): number {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  let i = t.lowestFree.get(key) ?? 0;
  for (let n = 0; n < count; n++, i++) {
    while (store.peek(types.pod, ns, `${name}-${i}`)) i++;
    createPod(store, types, d, hash, `${name}-${i}`);
  }
  t.lowestFree.set(key, i);
  return Math.max(0, count);
}

/**
 * The active pods to delete (the surplus of the current template, and older-template pods beyond `replicas` or
 * replaced within maxUnavailable), in the order kube's ReplicaSet controller deletes them; and how many
 * older-template pods are kept for now.
 */
function chooseDeletions(store: KubeStore, d: KubeObject, active: KubeObject[], hash: string): { doomed: KubeObject[]; held: number; kept: number } {
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const isCurrent = (p: KubeObject) => p.metadata.labels?.['pod-template-hash'] === hash;
  // Sorted only when some pod may go (as getPodsToDelete sorts only when it deletes some).
  const settled = active.length <= replicas && active.every(isCurrent);
  const ordered = settled ? active : deletionOrder(active, active, store.now());
  const current = ordered.filter(isCurrent);
  const old = ordered.filter((p) => !isCurrent(p));
  const surplus = Math.max(0, current.length - replicas);
  const kept = current.length - surplus;
  // Older-template pods fill the rest of `replicas` until replaced; any beyond go at once.
  const oldSurplus = Math.max(0, old.length - (replicas - kept));
  const doomed = [...current.slice(0, surplus), ...old.slice(0, oldSurplus)];
  const replaceable = old.slice(oldSurplus);
  let unavailable = replicas - [...current.slice(surplus), ...replaceable].filter(isReady).length;
  const budget = maxUnavailable(spec, replicas);
  let held = 0;
  for (const p of replaceable) {
    if (isReady(p) && unavailable >= budget) held++;
    else {
      doomed.push(p);
      if (isReady(p)) unavailable++;
    }
  }
  return { doomed, held, kept };
}

/**
 * The whole Deployment from its pods: ReplicaSets, surplus pods deleted (in kube's order), rolling update (pods of
 * an older template deleted while the not-ready count stays within maxUnavailable; Recreate deletes them all at
 * once; surge not modelled), missing pods created. Marks it unsettled when older-template pods are left to replace.
 */
function reconcileInFull(store: KubeStore, types: KubeTypes, t: Tracking, d: KubeObject, key: string): number {
  const name = d.metadata.name ?? '';
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const hash = templateHash(spec.template);
  const labelled = store.scanWhere(types.pod, DEPLOYMENT_LABEL, name, d.metadata.namespace ?? 'default');
  t.running.set(key, new Set(labelled.filter(isRunning).map((p) => p.metadata.name ?? '')));
  const owned = labelled.filter((p) => ownedBy(p, name));
  let changes = reconcileReplicaSets(store, d, hash, replicas, new Set(owned.map((p) => p.metadata.labels?.['pod-template-hash'] ?? hash)));
  const active = owned.filter(isActive);
  t.active.set(key, new Set(active.map((p) => p.metadata.name ?? '')));
  const { doomed, held, kept } = chooseDeletions(store, d, active, hash);
  for (const p of doomed) deleteOnPurpose(store, types, p);
  changes += doomed.length;
  if (held > 0) t.unsettled.add(key);
  else t.unsettled.delete(key);
  return changes + createPods(store, types, t, d, key, hash, replicas - kept - held);
}

/**
 * Only the pods written since the last pass: the Deployment is topped up to `replicas` from its active count.
 * Undefined when it calls for the whole Deployment (more active pods than `replicas`, or one of another template).
 */
function reconcilePods(store: KubeStore, types: KubeTypes, t: Tracking, d: KubeObject, key: string, podNames: Iterable<string>): number | undefined {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const hash = templateHash(spec.template);
  for (const podName of podNames) {
    const p = store.peek(types.pod, ns, podName);
    if (p && isActive(p) && ownedBy(p, name) && p.metadata.labels?.[LABEL] === name && p.metadata.labels['pod-template-hash'] !== hash) return undefined;
  }
  const active = t.active.get(key)?.size ?? 0;
  if (active > replicas) return undefined;
  return createPods(store, types, t, d, key, hash, replicas - active);
}

export function reconcileDeployments(store: KubeStore): number {
  const types = kubeTypes(store);
  let t = tracked.get(store);
  const first = t === undefined;
  if (!t) {
    t = { full: new Set(), pods: new Map(), unsettled: new Set(), running: new Map(), active: new Map(), lowestFree: new Map(), orphaned: false };
    tracked.set(store, t);
    track(store, types, t);
  }
  forgetGone(store, types);
  let changes = first || t.orphaned ? collectDeletedDeployments(store, types) : 0;
  t.orphaned = false;
  const live = new Set<string>();
  for (const d of store.scan(types.deployment)) {
    const key = `${d.metadata.namespace ?? 'default'}/${d.metadata.name ?? ''}`;
    live.add(key);
    const pods = t.pods.get(key);
    t.pods.delete(key);
    const inFull = first || t.full.delete(key) || (pods !== undefined && t.unsettled.has(key));
    // Nothing it reads changed since it was last reconciled: it would change nothing.
    if (!inFull && pods === undefined) continue;
    const byPod = inFull ? undefined : reconcilePods(store, types, t, d, key, pods ?? []);
    changes += byPod ?? reconcileInFull(store, types, t, d, key);
    updateStatus(store, types, d, (d.spec as DeploymentSpec | undefined)?.replicas ?? 1, t.running.get(key)?.size ?? 0);
  }
  // Writes to pods no Deployment owns (DaemonSet pods, pods applied by hand) are forgotten.
  for (const map of [t.pods, t.running, t.active, t.lowestFree]) for (const key of map.keys()) if (!live.has(key)) map.delete(key);
  return changes;
}
