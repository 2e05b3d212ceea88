/**
 * The Kubernetes API calls the adapters make, named as client-node's generated methods are (so the RBAC test
 * and the retry errors name them the same way), each a plain-JSON request (./rest.ts) retried on 429/5xx and
 * connection errors (./retry.ts). Every answer is the API server's JSON, as the core's from-kube mappers read it.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { httpCode, kubeRequest, type Method, type Query } from './rest';

export { httpCode };
import { retrying, type RetryOptions } from './retry';

export const KarpenterResources = {
  nodePools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  nodeClaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' },
  nodeClasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
  nodeOverlays: { group: 'karpenter.sh', version: 'v1alpha1', plural: 'nodeoverlays' },
  capacityBuffers: { group: 'autoscaling.x-k8s.io', version: 'v1beta1', plural: 'capacitybuffers' },
} as const;

type Json = Record<string, unknown>;
/** A list answer: `items` and `metadata.continue` for the next page. */
export interface KubeList {
  items: Json[];
  metadata?: { continue?: string };
}
type Paging = { _continue?: string | undefined; limit?: number };
type Named = { name: string };
type InNamespace = { name: string; namespace: string };
type CustomResource = { group: string; version: string; plural: string };

const seg = encodeURIComponent;
const paging = (p: Paging = {}, extra: Query = {}): Query => ({ ...extra, limit: p.limit, continue: p._continue });
const customPath = (r: CustomResource, name?: string) => `/apis/${r.group}/${r.version}/${r.plural}${name !== undefined ? `/${seg(name)}` : ''}`;

export function makeApis(kc: KubeConfig, retry: RetryOptions = {}) {
  const call = <T>(what: string, method: Method, path: string, query?: Query, body?: unknown) =>
    retrying(what, (signal) => kubeRequest<T>(kc, method, path, { ...(query ? { query } : {}), ...(body !== undefined ? { body } : {}), signal }), retry);
  const list = (what: string, path: string, p?: Paging, extra?: Query) => call<KubeList>(what, 'GET', path, paging(p, extra));
  return {
    core: {
      readNode: (a: Named) => call<Json>('core.readNode', 'GET', `/api/v1/nodes/${seg(a.name)}`),
      listNode: (p: Paging & { labelSelector?: string } = {}) => list('core.listNode', '/api/v1/nodes', p, { labelSelector: p.labelSelector }),
      patchNode: (a: Named & { body: Json }) => call<Json>('core.patchNode', 'PATCH', `/api/v1/nodes/${seg(a.name)}`, undefined, a.body),
      deleteNode: (a: Named) => call<Json>('core.deleteNode', 'DELETE', `/api/v1/nodes/${seg(a.name)}`),
      listPodForAllNamespaces: (p: Paging & { fieldSelector?: string }) =>
        list('core.listPodForAllNamespaces', '/api/v1/pods', p, { fieldSelector: p.fieldSelector }),
      deleteNamespacedPod: (a: InNamespace & { gracePeriodSeconds?: number }) =>
        call<Json>('core.deleteNamespacedPod', 'DELETE', `/api/v1/namespaces/${seg(a.namespace)}/pods/${seg(a.name)}`, {
          gracePeriodSeconds: a.gracePeriodSeconds,
        }),
      patchNamespacedPod: (a: InNamespace & { body: Json }) =>
        call<Json>('core.patchNamespacedPod', 'PATCH', `/api/v1/namespaces/${seg(a.namespace)}/pods/${seg(a.name)}`, undefined, a.body),
      patchNamespacedPodStatus: (a: InNamespace & { body: Json }) =>
        call<Json>('core.patchNamespacedPodStatus', 'PATCH', `/api/v1/namespaces/${seg(a.namespace)}/pods/${seg(a.name)}/status`, undefined, a.body),
      createNamespacedPodEviction: (a: InNamespace & { body: Json }) =>
        call<Json>('core.createNamespacedPodEviction', 'POST', `/api/v1/namespaces/${seg(a.namespace)}/pods/${seg(a.name)}/eviction`, undefined, a.body),
      createNamespacedEvent: (a: { namespace: string; body: Json }) =>
        call<Json>('core.createNamespacedEvent', 'POST', `/api/v1/namespaces/${seg(a.namespace)}/events`, undefined, a.body),
      readNamespacedEvent: (a: InNamespace) => call<Json>('core.readNamespacedEvent', 'GET', `/api/v1/namespaces/${seg(a.namespace)}/events/${seg(a.name)}`),
      patchNamespacedEvent: (a: InNamespace & { body: Json }) =>
        call<Json>('core.patchNamespacedEvent', 'PATCH', `/api/v1/namespaces/${seg(a.namespace)}/events/${seg(a.name)}`, undefined, a.body),
      listPersistentVolume: (p?: Paging) => list('core.listPersistentVolume', '/api/v1/persistentvolumes', p),
      listNamespace: (p?: Paging) => list('core.listNamespace', '/api/v1/namespaces', p),
      listPersistentVolumeClaimForAllNamespaces: (p?: Paging) => list('core.listPersistentVolumeClaimForAllNamespaces', '/api/v1/persistentvolumeclaims', p),
      listServiceForAllNamespaces: (p?: Paging) => list('core.listServiceForAllNamespaces', '/api/v1/services', p),
      listPodTemplateForAllNamespaces: (p?: Paging) => list('core.listPodTemplateForAllNamespaces', '/api/v1/podtemplates', p),
      readNamespacedPodTemplate: (a: InNamespace) =>
        call<Json>('core.readNamespacedPodTemplate', 'GET', `/api/v1/namespaces/${seg(a.namespace)}/podtemplates/${seg(a.name)}`),
      readNamespacedPersistentVolumeClaim: (a: InNamespace) =>
        call<Json>('core.readNamespacedPersistentVolumeClaim', 'GET', `/api/v1/namespaces/${seg(a.namespace)}/persistentvolumeclaims/${seg(a.name)}`),
      readPersistentVolume: (a: Named) => call<Json>('core.readPersistentVolume', 'GET', `/api/v1/persistentvolumes/${seg(a.name)}`),
    },
    apps: {
      listDaemonSetForAllNamespaces: (p?: Paging) => list('apps.listDaemonSetForAllNamespaces', '/apis/apps/v1/daemonsets', p),
      readNamespacedDeployment: (a: InNamespace) =>
        call<Json>('apps.readNamespacedDeployment', 'GET', `/apis/apps/v1/namespaces/${seg(a.namespace)}/deployments/${seg(a.name)}`),
      readNamespacedReplicaSet: (a: InNamespace) =>
        call<Json>('apps.readNamespacedReplicaSet', 'GET', `/apis/apps/v1/namespaces/${seg(a.namespace)}/replicasets/${seg(a.name)}`),
      readNamespacedStatefulSet: (a: InNamespace) =>
        call<Json>('apps.readNamespacedStatefulSet', 'GET', `/apis/apps/v1/namespaces/${seg(a.namespace)}/statefulsets/${seg(a.name)}`),
    },
    policy: {
      listPodDisruptionBudgetForAllNamespaces: (p?: Paging) =>
        list('policy.listPodDisruptionBudgetForAllNamespaces', '/apis/policy/v1/poddisruptionbudgets', p),
    },
    storage: { listStorageClass: (p?: Paging) => list('storage.listStorageClass', '/apis/storage.k8s.io/v1/storageclasses', p) },
    scheduling: { listPriorityClass: (p?: Paging) => list('scheduling.listPriorityClass', '/apis/scheduling.k8s.io/v1/priorityclasses', p) },
    coordination: {
      readNamespacedLease: (a: InNamespace) =>
        call<Json>('coordination.readNamespacedLease', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${seg(a.namespace)}/leases/${seg(a.name)}`),
    },
    custom: {
      listClusterCustomObject: (r: CustomResource & Paging) => list('custom.listClusterCustomObject', customPath(r), r),
      getClusterCustomObject: (r: CustomResource & Named) => call<Json>('custom.getClusterCustomObject', 'GET', customPath(r, r.name)),
      createClusterCustomObject: (r: CustomResource & { body: Json }) =>
        call<Json>('custom.createClusterCustomObject', 'POST', customPath(r), undefined, r.body),
      patchClusterCustomObject: (r: CustomResource & Named & { body: Json }) =>
        call<Json>('custom.patchClusterCustomObject', 'PATCH', customPath(r, r.name), undefined, r.body),
      patchClusterCustomObjectStatus: (r: CustomResource & Named & { body: Json }) =>
        call<Json>('custom.patchClusterCustomObjectStatus', 'PATCH', `${customPath(r, r.name)}/status`, undefined, r.body),
      deleteClusterCustomObject: (r: CustomResource & Named) => call<Json>('custom.deleteClusterCustomObject', 'DELETE', customPath(r, r.name)),
      getNamespacedCustomObject: (r: CustomResource & InNamespace) =>
        call<Json>('custom.getNamespacedCustomObject', 'GET', `/apis/${r.group}/${r.version}/namespaces/${seg(r.namespace)}/${r.plural}/${seg(r.name)}`),
      patchNamespacedCustomObjectStatus: (r: CustomResource & InNamespace & { body: Json }) =>
        call<Json>(
          'custom.patchNamespacedCustomObjectStatus',
          'PATCH',
          `/apis/${r.group}/${r.version}/namespaces/${seg(r.namespace)}/${r.plural}/${seg(r.name)}/status`,
          undefined,
          r.body,
        ),
    },
  };
}

export type KubeApis = ReturnType<typeof makeApis>;

/** Runs `fn`, turning the listed HTTP codes into `fallback`. */
export async function tolerate<T>(fn: () => Promise<T>, codes: number[], fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (codes.includes(httpCode(err) ?? -1)) return fallback;
    throw err;
  }
}
