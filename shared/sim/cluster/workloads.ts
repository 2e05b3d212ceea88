/**
 * Deployment, DaemonSet and pod-garbage controllers, simulated. A Deployment's pods are `<name>-<i>` for
 * i < replicas (as shared/core/model/manifests names them), owned by its ReplicaSet; a missing one (evicted,
 * deleted) is recreated Pending, extra ones are deleted, and pods of an older template are replaced.
 * DaemonSet pods are created bound to each node whose taints they tolerate. Pods bound to a node that no
 * longer exists are deleted (pod GC).
 */
import { createHash } from 'node:crypto';
import { TaintKey } from '../../core/model/labels';
import type { Taint, Toleration } from '../../core/model/kube';
import { untoleratedTaint } from '../../core/scheduling/selectors';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { isDaemonSetPod, kubeTypes, podNodeName, type KubeTypes } from './kube-objects';
import { admittedPod, runningStatus } from './pod-content';

/** Writes of the controllers kube-controller-manager runs (deployment, replicaset, daemonset, garbage collectors). */
const KCM = { manager: 'kube-controller-manager' };

export const templateHash = (template: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex')
    .slice(0, 10);

const ownerName = (p: KubeObject, kind: string): string | undefined =>
  (p.metadata.ownerReferences as { kind?: string; name?: string }[] | undefined)?.find((r) => r.kind === kind)?.name;

/** The label the simulated Deployment controller puts on its pods (its Deployment's name), and spec.nodeName: fields the store indexes. */
const DEPLOYMENT_LABEL = ['metadata', 'labels', 'nodewright.sim/deployment'];
const NODE_NAME = ['spec', 'nodeName'];

const keyOf = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;
/** In LIST order (the store's: namespace/name compared as plain strings). */
const inKeyOrder = (objs: KubeObject[]): KubeObject[] =>
  objs
    .map((o) => [keyOf(o), o] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, o]) => o);

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

interface DeploymentSpec {
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

const isReady = (p: KubeObject): boolean =>
  Boolean(podNodeName(p)) &&
  ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Pods a rolling update may take down at once: maxUnavailable (default 25 %, rounded down), at least 1. */
function maxUnavailable(spec: DeploymentSpec, replicas: number): number {
  if (spec.strategy?.type === 'Recreate') return Number.MAX_SAFE_INTEGER;
  const v = spec.strategy?.rollingUpdate?.maxUnavailable ?? '25%';
  const n = typeof v === 'number' ? v : /%$/.test(v) ? Math.floor((Number(v.slice(0, -1)) / 100) * replicas) : Number(v);
  return Math.max(1, Number.isFinite(n) ? n : 1);
}

export interface WorkloadEvents {
  /** A pod removed because its node is gone (not evicted through the API). */
  onPodLost?(pod: string, node: string): void;
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
function collectDeletedDeployments(store: KubeStore): number {
  const types = kubeTypes(store);
  const rsType = store.typeOf('apps/v1', 'ReplicaSet');
  const live = new Set(store.scan(types.deployment).map((d) => `${d.metadata.namespace}/${d.metadata.name}`));
  let changes = 0;
  // The pods labelled with a Deployment's name, by the store's index on the label: only those of a gone one are read.
  const labelled = store
    .fieldValues(types.pod, DEPLOYMENT_LABEL)
    .filter((owner) => owner !== '')
    .flatMap((owner) => store.scanWhere(types.pod, DEPLOYMENT_LABEL, owner).filter((p) => !live.has(`${p.metadata.namespace}/${owner}`)));
  for (const p of inKeyOrder(labelled)) {
    const owner = p.metadata.labels?.['nodewright.sim/deployment'];
    if (owner && !live.has(`${p.metadata.namespace}/${owner}`) && !p.metadata.deletionTimestamp) {
      store.delete(types.pod, p.metadata.namespace, p.metadata.name ?? '', { gracePeriodSeconds: 0 });
      changes++;
    }
  }
  for (const rs of store.scan(rsType)) {
    const owner = (rs.metadata.ownerReferences as { kind?: string; name?: string }[] | undefined)?.find((r) => r.kind === 'Deployment')?.name;
    if (owner && !live.has(`${rs.metadata.namespace}/${owner}`)) {
      store.delete(rsType, rs.metadata.namespace, rs.metadata.name ?? '');
      changes++;
    }
  }
  return changes;
}

/** The Deployment's missing pods (`<name>-<i>`, i < replicas) created Pending from the template, owned by the current ReplicaSet. */
function createMissingPods(
  store: KubeStore,
  types: KubeTypes,
  ns: string,
  name: string,
  hash: string,
  replicas: number,
  template: PodTemplate | undefined,
  byName: Map<string, KubeObject>,
): number {
  const rsName = `${name}-${hash}`;
  let changes = 0;
  for (let i = 0; i < replicas; i++) {
    const podName = `${name}-${i}`;
    if (byName.has(podName)) continue;
    if (store.tryGet(types.pod, ns, podName)) continue;
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
          labels: { ...(template?.metadata?.labels ?? {}), 'pod-template-hash': hash, 'nodewright.sim/deployment': name },
          ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: rsName,
              uid: store.tryGet(store.typeOf('apps/v1', 'ReplicaSet'), ns, rsName)?.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: admitted.spec,
        status: admitted.status,
      },
      KCM,
    );
    changes++;
  }
  return changes;
}

/** The Deployment's status: the replicas it wants, and its ready (bound and Running) pods. */
function updateStatus(store: KubeStore, types: KubeTypes, d: KubeObject, replicas: number): void {
  const ns = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const ready = store
    .scanWhere(types.pod, DEPLOYMENT_LABEL, name, ns)
    .filter((p) => p.metadata.namespace === ns && podNodeName(p) && (p.status as { phase?: string })?.phase === 'Running').length;
  const status = d.status as { replicas?: number; readyReplicas?: number; observedGeneration?: number } | undefined;
  // observedGeneration: the controller has seen the latest spec (`kubectl rollout status` waits for it).
  const observedGeneration = d.metadata.generation ?? 1;
  if (status?.replicas !== replicas || status?.readyReplicas !== ready || status?.observedGeneration !== observedGeneration) {
    store.update(
      types.deployment,
      ns,
      name,
      { ...d, status: { ...(d.status ?? {}), observedGeneration, replicas, readyReplicas: ready, availableReplicas: ready, updatedReplicas: replicas } },
      { subresource: 'status', ...KCM },
    );
  }
}

/** Per store: the Deployments (`namespace/name`) whose object, pods (by label or name) or ReplicaSets were written since they were last reconciled. */
const written = new WeakMap<KubeStore, Set<string>>();

/**
 * The Deployments to reconcile: those with a write to something they read since they were last reconciled, or
 * undefined (every one) on the first call for a store, which starts keeping the set from then on.
 */
function changedDeployments(store: KubeStore): Set<string> | undefined {
  if (written.has(store)) return written.get(store);
  const set = new Set<string>();
  written.set(store, set);
  store.onChangeFirst((e) => {
    const { group, resource } = e.resource;
    const meta = e.object.metadata;
    const ns = meta.namespace ?? 'default';
    if (group === 'apps' && resource === 'deployments') set.add(`${ns}/${meta.name}`);
    if (!((group === '' && resource === 'pods') || (group === 'apps' && resource === 'replicasets'))) return;
    // A pod `<deployment>-<i>` or ReplicaSet `<deployment>-<hash>`, and the Deployment a pod is labelled with (before and after).
    const name = meta.name ?? '';
    if (name.lastIndexOf('-') > 0) set.add(`${ns}/${name.slice(0, name.lastIndexOf('-'))}`);
    for (const labels of [meta.labels, e.old?.metadata.labels])
      if (labels?.['nodewright.sim/deployment']) set.add(`${ns}/${labels['nodewright.sim/deployment']}`);
  });
  return undefined;
}

export function reconcileDeployments(store: KubeStore): number {
  const types = kubeTypes(store);
  const changed = changedDeployments(store);
  let changes = collectDeletedDeployments(store);
  for (const d of store.scan(types.deployment)) {
    const ns = d.metadata.namespace ?? 'default';
    const name = d.metadata.name ?? '';
    // Nothing it reads changed since it was last reconciled: it would change nothing.
    if (changed && !changed.has(`${ns}/${name}`)) continue;
    changed?.delete(`${ns}/${name}`);
    const spec = (d.spec ?? {}) as { replicas?: number; template?: PodTemplate };
    const replicas = spec.replicas ?? 1;
    const hash = templateHash(spec.template);
    const owned = store
      .scanWhere(types.pod, DEPLOYMENT_LABEL, name, ns)
      .filter((p) => p.metadata.namespace === ns && ownerName(p, 'ReplicaSet')?.startsWith(`${name}-`));
    changes += reconcileReplicaSets(store, d, hash, replicas, new Set(owned.map((p) => p.metadata.labels?.['pod-template-hash'] ?? hash)));
    const byName = new Map(owned.map((p) => [p.metadata.name ?? '', p]));
    const indexOf = (p: KubeObject) => Number((p.metadata.name ?? '').slice(name.length + 1));
    // Rolling update: pods of an older template are replaced (same name, so delete then recreate) while the
    // not-ready count stays within maxUnavailable; Recreate replaces them all at once. Surge is not modelled.
    let unavailable = replicas - owned.filter((p) => indexOf(p) < replicas && isReady(p) && !p.metadata.deletionTimestamp).length;
    const budget = maxUnavailable(spec as DeploymentSpec, replicas);
    for (const p of owned) {
      const index = indexOf(p);
      const stale = p.metadata.labels?.['pod-template-hash'] !== hash;
      if (!(index < replicas) || stale) {
        if (index < replicas && isReady(p) && unavailable >= budget) continue;
        if (!p.metadata.deletionTimestamp) {
          store.delete(types.pod, ns, p.metadata.name ?? '', { gracePeriodSeconds: 0 });
          if (index < replicas && isReady(p)) unavailable++;
          changes++;
        }
        byName.delete(p.metadata.name ?? '');
      }
    }
    changes += createMissingPods(store, types, ns, name, hash, replicas, spec.template, byName);
    updateStatus(store, types, d, replicas);
  }
  return changes;
}

/** Taints a DaemonSet pod tolerates by default (the DaemonSet controller adds these tolerations). */
const DAEMONSET_TOLERATIONS: Toleration[] = [
  { key: TaintKey.notReady, operator: 'Exists', effect: 'NoExecute' },
  { key: TaintKey.unreachable, operator: 'Exists', effect: 'NoExecute' },
  { key: TaintKey.unschedulable, operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
];

export function reconcileDaemonSets(store: KubeStore): number {
  const types = kubeTypes(store);
  if (store.scan(types.daemonSet).length === 0) return 0;
  let changes = 0;
  const nodes = store.scan(types.node).filter((n) => !n.metadata.deletionTimestamp);
  // The DaemonSet pods already on each node, by DaemonSet name and node name.
  const placed = new Set<string>();
  for (const p of store.scan(types.pod)) {
    const [owner, node] = [ownerName(p, 'DaemonSet'), podNodeName(p)];
    if (isDaemonSetPod(p) && owner !== undefined && node !== undefined) placed.add(`${owner}\u0000${node}`);
  }
  for (const ds of store.scan(types.daemonSet)) {
    const ns = ds.metadata.namespace ?? 'default';
    const name = ds.metadata.name ?? '';
    const template = (ds.spec as { template?: { metadata?: { labels?: Record<string, string> }; spec?: Record<string, unknown> } } | undefined)?.template ?? {};
    const tolerations = [...((template.spec?.tolerations as Toleration[] | undefined) ?? []), ...DAEMONSET_TOLERATIONS];
    const selector = (template.spec?.nodeSelector as Record<string, string> | undefined) ?? {};
    for (const n of nodes) {
      const nodeName = n.metadata.name ?? '';
      const taints = ((n.spec?.taints as Taint[] | undefined) ?? []).filter((t) => t.effect !== 'PreferNoSchedule');
      const fits = !untoleratedTaint({ tolerations }, taints) && Object.entries(selector).every(([k, v]) => n.metadata.labels?.[k] === v);
      // 5 hex characters collide among thousands of nodes: a name taken on another node gets the next one.
      let podName = `${name}-${createHash('sha256').update(nodeName).digest('hex').slice(0, 5)}`;
      for (let k = 1, p = store.tryGet(types.pod, ns, podName); p && podNodeName(p) !== nodeName; k++, p = store.tryGet(types.pod, ns, podName))
        podName = `${name}-${createHash('sha256').update(`${nodeName}#${k}`).digest('hex').slice(0, 5)}`;
      const existing = placed.has(`${name}\u0000${nodeName}`);
      if (fits && !existing && !store.tryGet(types.pod, ns, podName)) {
        const admitted = admittedPod(ns, podName, { ...structuredClone(template.spec ?? {}), nodeName, tolerations });
        const pod: KubeObject = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: podName,
            namespace: ns,
            labels: template.metadata?.labels ?? {},
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid: ds.metadata.uid, controller: true }],
          },
          spec: admitted.spec,
        };
        const hostIp =
          ((n.status?.addresses as { type?: string; address?: string }[] | undefined) ?? []).find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
        store.create(types.pod, ns, { ...pod, status: runningStatus(pod, hostIp, store.timestamp(), admitted.status) }, KCM);
        changes++;
      }
    }
  }
  return changes;
}

/**
 * Pod GC: deletes pods bound to nodes that no longer exist (a Node object removed, e.g. after its finalizers
 * went), with grace period 0 as the pod garbage collector does; their controllers then recreate them.
 */
export function collectOrphanPods(store: KubeStore, events: WorkloadEvents = {}): number {
  const types = kubeTypes(store);
  const nodes = new Set(store.scan(types.node).map((n) => n.metadata.name));
  // The pods bound to a node that is not there, in LIST order (by the store's index on spec.nodeName).
  const orphans = store
    .fieldValues(types.pod, NODE_NAME)
    .filter((node) => node !== '' && !nodes.has(node))
    .flatMap((node) => store.scanWhere(types.pod, NODE_NAME, node));
  let changes = 0;
  for (const p of inKeyOrder(orphans)) {
    const node = podNodeName(p);
    if (!node || nodes.has(node)) continue;
    if (p.metadata.deletionTimestamp && (p.metadata.finalizers ?? []).length > 0) continue; // already deleted; its finalizers hold it
    store.delete(types.pod, p.metadata.namespace, p.metadata.name ?? '', { gracePeriodSeconds: 0 });
    if (!isDaemonSetPod(p)) events.onPodLost?.(`${p.metadata.namespace}/${p.metadata.name}`, node);
    changes++;
  }
  return changes;
}
