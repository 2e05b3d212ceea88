/**
 * A running cluster read as the manifests `plan` and `explain` take (read-only): the objects a Karpenter user's
 * cluster holds — NodePools, EC2NodeClasses, NodeClaims, Nodes, active Pods, DaemonSets, PDBs, volumes and storage
 * classes, PriorityClasses and Namespaces, NodeOverlays, CapacityBuffers and PodTemplates — as one `kind: List` document, each item with its kind (a LIST answer's
 * items carry none). GETs and LISTs only, paged; nothing is written.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { httpCode, KarpenterResources, makeApis, type KubeList } from './apis';
import { ACTIVE_PODS, listAll } from './snapshot';

type Json = Record<string, unknown>;
const PAGE = 500;

export interface LiveCluster {
  /** The server read, for messages (`cluster https://…`). */
  server: string;
  /** Multi-document YAML's equivalent: one JSON `List` of every object read. */
  text: string;
  counts: Record<string, number>;
}

/** A list a cluster may not serve (its CRD not installed, or not readable): none then. */
const optional =
  (page: (c: string | undefined, l: number) => Promise<KubeList>) =>
  (c: string | undefined, l: number): Promise<KubeList> =>
    page(c, l).catch((e: unknown) => {
      if (httpCode(e) === 404 || httpCode(e) === 403) return { items: [] };
      throw e;
    });

export async function readLiveCluster(kc: KubeConfig): Promise<LiveCluster> {
  const apis = makeApis(kc, { attempts: 2 });
  const kinds: [string, string, (c: string | undefined, l: number) => Promise<KubeList>][] = [
    ['karpenter.sh/v1', 'NodePool', (c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.nodePools, _continue: c, limit: l })],
    ['karpenter.k8s.aws/v1', 'EC2NodeClass', (c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.nodeClasses, _continue: c, limit: l })],
    ['karpenter.sh/v1', 'NodeClaim', (c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.nodeClaims, _continue: c, limit: l })],
    ['v1', 'Node', (c, l) => apis.core.listNode({ _continue: c, limit: l })],
    ['v1', 'Pod', (c, l) => apis.core.listPodForAllNamespaces({ _continue: c, limit: l, fieldSelector: ACTIVE_PODS })],
    ['apps/v1', 'DaemonSet', (c, l) => apis.apps.listDaemonSetForAllNamespaces({ _continue: c, limit: l })],
    ['policy/v1', 'PodDisruptionBudget', (c, l) => apis.policy.listPodDisruptionBudgetForAllNamespaces({ _continue: c, limit: l })],
    ['v1', 'PersistentVolume', (c, l) => apis.core.listPersistentVolume({ _continue: c, limit: l })],
    ['v1', 'PersistentVolumeClaim', (c, l) => apis.core.listPersistentVolumeClaimForAllNamespaces({ _continue: c, limit: l })],
    ['storage.k8s.io/v1', 'StorageClass', (c, l) => apis.storage.listStorageClass({ _continue: c, limit: l })],
    ['scheduling.k8s.io/v1', 'PriorityClass', (c, l) => apis.scheduling.listPriorityClass({ _continue: c, limit: l })],
    ['v1', 'Namespace', (c, l) => apis.core.listNamespace({ _continue: c, limit: l })],
    // Optional APIs: a cluster without their CRD has none.
    [
      'karpenter.sh/v1alpha1',
      'NodeOverlay',
      optional((c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.nodeOverlays, _continue: c, limit: l })),
    ],
    [
      'autoscaling.x-k8s.io/v1beta1',
      'CapacityBuffer',
      optional((c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.capacityBuffers, _continue: c, limit: l })),
    ],
    ['v1', 'PodTemplate', optional((c, l) => apis.core.listPodTemplateForAllNamespaces({ _continue: c, limit: l }))],
  ];
  const lists = await Promise.all(kinds.map(([, , page]) => listAll(page, PAGE)));
  const items: Json[] = [];
  const counts: Record<string, number> = {};
  kinds.forEach(([apiVersion, kind], i) => {
    counts[kind] = lists[i].length;
    for (const o of lists[i]) items.push({ ...o, apiVersion, kind });
  });
  return { server: kc.getCurrentCluster()?.server ?? '', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), counts };
}
