/**
 * The Deployment controller, simulated. A Deployment's pods are `<name>-<i>` for i < replicas (as
 * shared/core/model/manifests names them), owned by its ReplicaSet; a missing one (evicted, deleted) is recreated
 * Pending, extra ones are deleted, and pods of an older template are replaced within maxUnavailable.
 *
 * Like kube-controller-manager's, it works from what changed (its informers' events), not from the whole cluster at
 * every pass: a Deployment whose object or ReplicaSets were written is reconciled in full; otherwise only its pods
 * written since the last pass are looked at (a pod gone below `replicas` is recreated), and its ready count is kept
 * from the writes. A pass costs what changed, not the Deployment's size.
 */
import { createHash } from 'node:crypto';
import type { KubeStore } from '../kube/store';
import type { ChangeEvent, KubeObject } from '../kube/types';
import { inKeyOrder, KCM, kubeTypes, ownerName, podNodeName, type KubeTypes } from './kube-objects';
import { admittedPod } from './pod-content';

export const templateHash = (template: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex')
    .slice(0, 10);

/** The label the simulated Deployment controller puts on its pods (its Deployment's name): a field the store indexes. */
const LABEL = 'nodewright.sim/deployment';
const DEPLOYMENT_LABEL = ['metadata', 'labels', LABEL];

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

interface DeploymentSpec {
  replicas?: number;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

const isReady = (p: KubeObject): boolean =>
  Boolean(podNodeName(p)) &&
  ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** What the Deployment's status counts as ready: bound and Running. */
const isRunning = (p: KubeObject): boolean => Boolean(podNodeName(p)) && (p.status as { phase?: string } | undefined)?.phase === 'Running';

/** Pods a rolling update may take down at once: maxUnavailable (default 25 %, rounded down), at least 1. */
function maxUnavailable(spec: DeploymentSpec, replicas: number): number {
  if (spec.strategy?.type === 'Recreate') return Number.MAX_SAFE_INTEGER;
  const v = spec.strategy?.rollingUpdate?.maxUnavailable ?? '25%';
  const n = typeof v === 'number' ? v : /%$/.test(v) ? Math.floor((Number(v.slice(0, -1)) / 100) * replicas) : Number(v);
  return Math.max(1, Number.isFinite(n) ? n : 1);
}

/** What the controller knows between passes, kept from the store's writes (as its informers' caches). */
interface Tracking {
  /** Deployments (`namespace/name`) whose object or ReplicaSets were written: reconciled in full. */
  full: Set<string>;
  /** Pod names written since the last pass, by the Deployment they may belong to (by name or label). */
  pods: Map<string, Set<string>>;
  /** Deployments left with pods to replace or remove (a rolling update held by maxUnavailable). */
  unsettled: Set<string>;
  /** Bound, Running pods by the Deployment they are labelled with: the status's readyReplicas. */
  running: Map<string, Set<string>>;
  /** A Deployment was deleted, or a pod labelled with a missing one appeared: owner garbage collection runs. */
  orphaned: boolean;
}

const tracked = new WeakMap<KubeStore, Tracking>();

const add = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
};

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
      // A pod `<deployment>-<i>`, and the Deployment it is labelled with (before and after).
      if (cut > 0) add(t.pods, `${ns}/${name.slice(0, cut)}`, name);
      const [before, after] = [e.old?.metadata.labels?.[LABEL], meta.labels?.[LABEL]];
      if (before && before !== after) {
        add(t.pods, `${ns}/${before}`, name);
        t.running.get(`${ns}/${before}`)?.delete(name);
      }
      if (!after) return;
      add(t.pods, `${ns}/${after}`, name);
      if (e.type !== 'DELETED' && isRunning(e.object)) add(t.running, `${ns}/${after}`, name);
      else t.running.get(`${ns}/${after}`)?.delete(name);
      if (e.type === 'ADDED' && !store.peek(types.deployment, ns, after)) t.orphaned = true;
    }
  });
}

/**
 * The Deployment's ReplicaSets as objects (the current template's at `replicas`, older ones at 0), owned by
 * the Deployment, so PodDisruptionBudgets count the replicas the Deployment wants (as the disruption
 * controller does) rather than the pods that happen to exist.
 */
function reconcileReplicaSets(store: KubeStore, d: KubeObject, currentHash: string, replicas: number, podHashes: Set<string>): number {
  const rsType = store.typeOf('apps/v1', 'ReplicaSet');
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  let changes = 0;
  for (const hash of new Set([currentHash, ...podHashes])) {
    const rsName = `${name}-${hash}`;
    const want = hash === currentHash ? replicas : 0;
    const existing = store.tryGet(rsType, ns, rsName);
    if (!existing) {
      const template = structuredClone(((d.spec ?? {}) as { template?: Record<string, unknown> }).template ?? {});
      store.create(
        rsType,
        ns,
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: rsName,
            namespace: ns,
            labels: { 'pod-template-hash': hash },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          spec: { replicas: want, selector: (d.spec as { selector?: unknown } | undefined)?.selector ?? {}, template },
        },
        KCM,
      );
      changes++;
    } else if (Number((existing.spec as { replicas?: number } | undefined)?.replicas) !== want) {
      store.update(rsType, ns, rsName, { ...existing, spec: { ...(existing.spec ?? {}), replicas: want } }, KCM);
      changes++;
    }
  }
  return changes;
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
      store.delete(types.pod, p.metadata.namespace, p.metadata.name ?? '', { gracePeriodSeconds: 0, readOnly: true });
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

/** Creates the Deployment's pod `<name>-<index>` Pending from the template, owned by the current ReplicaSet. */
function createPod(store: KubeStore, types: KubeTypes, d: KubeObject, hash: string, podName: string): void {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const template = (d.spec as DeploymentSpec | undefined)?.template;
  const rsName = `${name}-${hash}`;
  const admitted = admittedPod(ns, podName, structuredClone(template?.spec ?? {}));
  store.create(
    types.pod,
    ns,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: podName,
        namespace: ns,
        labels: { ...(template?.metadata?.labels ?? {}), 'pod-template-hash': hash, [LABEL]: name },
        ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: rsName,
            uid: store.peek(store.typeOf('apps/v1', 'ReplicaSet'), ns, rsName)?.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: admitted.spec,
      status: admitted.status,
    },
    { ...KCM, readOnly: true },
  );
}

/** The Deployment's status: the replicas it wants, and its ready (bound and Running) pods. */
function updateStatus(store: KubeStore, types: KubeTypes, d: KubeObject, replicas: number, ready: number): void {
  const status = d.status as { replicas?: number; readyReplicas?: number; observedGeneration?: number } | undefined;
  // observedGeneration: the controller has seen the latest spec (`kubectl rollout status` waits for it).
  const observedGeneration = d.metadata.generation ?? 1;
  if (status?.replicas !== replicas || status?.readyReplicas !== ready || status?.observedGeneration !== observedGeneration) {
    store.update(
      types.deployment,
      d.metadata.namespace ?? 'default',
      d.metadata.name ?? '',
      { ...d, status: { ...(d.status ?? {}), observedGeneration, replicas, readyReplicas: ready, availableReplicas: ready, updatedReplicas: replicas } },
      { subresource: 'status', ...KCM },
    );
  }
}

/**
 * The whole Deployment from its pods: ReplicaSets, rolling update (pods of an older template replaced, same name,
 * while the not-ready count stays within maxUnavailable; Recreate replaces them all at once; surge not modelled),
 * extra pods removed, missing ones created. Marks it unsettled when pods are left to replace.
 */
function reconcileInFull(store: KubeStore, types: KubeTypes, t: Tracking, d: KubeObject, key: string): number {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const hash = templateHash(spec.template);
  const labelled = store.scanWhere(types.pod, DEPLOYMENT_LABEL, name, ns);
  t.running.set(key, new Set(labelled.filter(isRunning).map((p) => p.metadata.name ?? '')));
  const owned = labelled.filter((p) => ownerName(p, 'ReplicaSet')?.startsWith(`${name}-`));
  let changes = reconcileReplicaSets(store, d, hash, replicas, new Set(owned.map((p) => p.metadata.labels?.['pod-template-hash'] ?? hash)));
  const present = new Set(owned.map((p) => p.metadata.name ?? ''));
  const indexOf = (p: KubeObject) => Number((p.metadata.name ?? '').slice(name.length + 1));
  let unavailable = replicas - owned.filter((p) => indexOf(p) < replicas && isReady(p) && !p.metadata.deletionTimestamp).length;
  const budget = maxUnavailable(spec, replicas);
  let held = false;
  for (const p of owned) {
    const index = indexOf(p);
    if (index < replicas && p.metadata.labels?.['pod-template-hash'] === hash) continue;
    if (index < replicas && isReady(p) && unavailable >= budget) {
      held = true;
      continue;
    }
    if (!p.metadata.deletionTimestamp) {
      store.delete(types.pod, ns, p.metadata.name ?? '', { gracePeriodSeconds: 0, readOnly: true });
      if (index < replicas && isReady(p)) unavailable++;
      changes++;
    }
    present.delete(p.metadata.name ?? '');
  }
  if (held) t.unsettled.add(key);
  else t.unsettled.delete(key);
  for (let i = 0; i < replicas; i++) {
    const podName = `${name}-${i}`;
    if (present.has(podName) || store.peek(types.pod, ns, podName)) continue;
    createPod(store, types, d, hash, podName);
    changes++;
  }
  return changes;
}

/**
 * Only the pods written since the last pass: a missing one below `replicas` is recreated. Undefined when one of
 * them calls for the whole Deployment (an extra pod, or one of another template).
 */
function reconcilePods(store: KubeStore, types: KubeTypes, d: KubeObject, podNames: Iterable<string>): number | undefined {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const spec = (d.spec ?? {}) as DeploymentSpec;
  const replicas = spec.replicas ?? 1;
  const hash = templateHash(spec.template);
  const indexed = [...podNames]
    .filter((p) => p.startsWith(`${name}-`) && /^\d+$/.test(p.slice(name.length + 1)))
    .map((p) => [Number(p.slice(name.length + 1)), p] as const)
    .sort(([a], [b]) => a - b);
  let changes = 0;
  for (const [index, podName] of indexed) {
    const p = store.peek(types.pod, ns, podName);
    if (!p) {
      if (index < replicas) createPod(store, types, d, hash, podName);
      changes += index < replicas ? 1 : 0;
    } else if (ownerName(p, 'ReplicaSet')?.startsWith(`${name}-`) && !(index < replicas && p.metadata.labels?.['pod-template-hash'] === hash)) return undefined;
  }
  return changes;
}

export function reconcileDeployments(store: KubeStore): number {
  const types = kubeTypes(store);
  let t = tracked.get(store);
  const first = t === undefined;
  if (!t) {
    t = { full: new Set(), pods: new Map(), unsettled: new Set(), running: new Map(), orphaned: false };
    tracked.set(store, t);
    track(store, types, t);
  }
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
    const byPod = inFull ? undefined : reconcilePods(store, types, d, pods ?? []);
    changes += byPod ?? reconcileInFull(store, types, t, d, key);
    updateStatus(store, types, d, (d.spec as DeploymentSpec | undefined)?.replicas ?? 1, t.running.get(key)?.size ?? 0);
  }
  // Writes to pods no Deployment owns (DaemonSet pods, pods applied by hand) are forgotten.
  for (const key of t.pods.keys()) if (!live.has(key)) t.pods.delete(key);
  for (const key of t.running.keys()) if (!live.has(key)) t.running.delete(key);
  return changes;
}
