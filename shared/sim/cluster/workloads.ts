/**
 * DaemonSet and pod-garbage controllers, simulated (the Deployment controller is deployments.ts). DaemonSet pods are
 * created bound to each node whose taints they tolerate. Pods bound to a node that no longer exists are deleted
 * (pod GC).
 */
import { createHash } from 'node:crypto';
import { TaintKey } from '../../core/model/labels';
import type { Taint, Toleration } from '../../core/model/kube';
import { untoleratedTaint } from '../../core/scheduling/selectors';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { hostIpOf, inKeyOrder, isDaemonSetPod, KCM, kubeTypes, ownerName, podNodeName } from './kube-objects';
import { admittedPod, runningStatus } from './pod-content';

const NODE_NAME = ['spec', 'nodeName'];

export interface WorkloadEvents {
  /** A pod removed because its node is gone (not evicted through the API). */
  onPodLost?(pod: string, node: string): void;
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
        const hostIp = hostIpOf(n);
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
    store.delete(types.pod, p.metadata.namespace, p.metadata.name ?? '', { gracePeriodSeconds: 0, readOnly: true });
    if (!isDaemonSetPod(p)) events.onPodLost?.(`${p.metadata.namespace}/${p.metadata.name}`, node);
    changes++;
  }
  return changes;
}
