/** The result of parsing manifests, and merging several of them. */
import type { EC2NodeClass, NodeClaim, NodeOverlay, NodePool } from '../karpenter';
import type { CapacityBuffer } from '../capacity-buffer';
import type { DaemonSet, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, PriorityClass, StorageClass } from '../kube';
import type { Workload } from './workloads';

interface ManifestWarning {
  file: string;
  /** 0-based document index in the file. */
  documentIndex: number;
  message: string;
}

export interface ManifestSet {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  /** karpenter.sh/v1alpha1 NodeOverlays (prices and extended resources of the instance types they match). */
  nodeOverlays: NodeOverlay[];
  /** autoscaling.x-k8s.io CapacityBuffers, and the PodTemplates they may reference. */
  capacityBuffers: CapacityBuffer[];
  podTemplates: { namespace: string; name: string; template: Pod }[];
  /** Pending and bound pods: standalone Pods plus the pods of every workload. DaemonSet-owned pods only when bound to a node. */
  pods: Pod[];
  daemonSets: DaemonSet[];
  nodes: Node[];
  pdbs: PodDisruptionBudget[];
  persistentVolumes: PersistentVolume[];
  persistentVolumeClaims: PersistentVolumeClaim[];
  storageClasses: StorageClass[];
  /** Namespace objects (their labels, for affinity terms with a namespaceSelector). */
  namespaces: Namespace[];
  /** Every Deployment / ReplicaSet / StatefulSet / Job, so a simulator can scale it (see workloadPods). */
  deployments: Workload[];
  priorityClasses: PriorityClass[];
  warnings: ManifestWarning[];
}

export function emptyManifestSet(): ManifestSet {
  return {
    nodePools: [],
    nodeClasses: [],
    nodeClaims: [],
    nodeOverlays: [],
    capacityBuffers: [],
    podTemplates: [],
    pods: [],
    daemonSets: [],
    nodes: [],
    pdbs: [],
    persistentVolumes: [],
    persistentVolumeClaims: [],
    storageClasses: [],
    namespaces: [],
    deployments: [],
    priorityClasses: [],
    warnings: [],
  };
}

function mergeBy<T>(lists: T[][], key: (t: T) => string): T[] {
  const out = new Map<string, T>();
  for (const list of lists)
    for (const item of list) {
      const k = key(item);
      out.delete(k); // a later definition replaces an earlier one and takes its position at the end
      out.set(k, item);
    }
  return [...out.values()];
}

const nsName = (o: { namespace: string; name: string }): string => `${o.namespace}/${o.name}`;
const byName = (o: { name: string }): string => o.name;

const OWNER_KIND: Record<Workload['kind'], string> = { Deployment: 'ReplicaSet', ReplicaSet: 'ReplicaSet', StatefulSet: 'StatefulSet', Job: 'Job' };

/** Each set's pods, minus the pods of workloads that a later set defines again (their pods come from there). */
function podsOf(sets: ManifestSet[]): Pod[][] {
  return sets.map((set, i) => {
    const redefined = new Set(sets.slice(i + 1).flatMap((later) => later.deployments.map((w) => `${OWNER_KIND[w.kind]}/${w.namespace}/${w.name}`)));
    return set.pods.filter((p) => !p.owner || !redefined.has(`${p.owner.kind}/${p.namespace}/${p.owner.name}`));
  });
}

/**
 * Merges sets in order; an object defined again later (same kind and name) replaces the earlier one, and a
 * workload defined again brings only its new pods (a later `replicas: 1` drops the earlier `web-1`, `web-2`).
 */
export function mergeManifestSets(...sets: ManifestSet[]): ManifestSet {
  return {
    nodePools: mergeBy(
      sets.map((s) => s.nodePools),
      byName,
    ),
    nodeClasses: mergeBy(
      sets.map((s) => s.nodeClasses),
      byName,
    ),
    nodeClaims: mergeBy(
      sets.map((s) => s.nodeClaims),
      byName,
    ),
    nodeOverlays: mergeBy(
      sets.map((s) => s.nodeOverlays),
      byName,
    ),
    capacityBuffers: mergeBy(
      sets.map((s) => s.capacityBuffers),
      nsName,
    ),
    podTemplates: mergeBy(
      sets.map((s) => s.podTemplates),
      nsName,
    ),
    pods: mergeBy(podsOf(sets), nsName),
    daemonSets: mergeBy(
      sets.map((s) => s.daemonSets),
      nsName,
    ),
    nodes: mergeBy(
      sets.map((s) => s.nodes),
      byName,
    ),
    pdbs: mergeBy(
      sets.map((s) => s.pdbs),
      nsName,
    ),
    persistentVolumes: mergeBy(
      sets.map((s) => s.persistentVolumes),
      byName,
    ),
    persistentVolumeClaims: mergeBy(
      sets.map((s) => s.persistentVolumeClaims),
      nsName,
    ),
    storageClasses: mergeBy(
      sets.map((s) => s.storageClasses),
      byName,
    ),
    namespaces: mergeBy(
      sets.map((s) => s.namespaces),
      byName,
    ),
    deployments: mergeBy(
      sets.map((s) => s.deployments),
      (w) => `${w.kind}/${w.namespace}/${w.name}`,
    ),
    priorityClasses: mergeBy(
      sets.map((s) => s.priorityClasses),
      byName,
    ),
    warnings: sets.flatMap((s) => s.warnings),
  };
}
