/**
 * The objects the simulated Deployment controller writes: its ReplicaSets, its pods (created from the template)
 * and its status. The reconciling is deployments.ts.
 */
import { createHash } from 'node:crypto';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { KCM, podNodeName, type KubeTypes } from './kube-objects';
import { admittedPod } from './pod-content';

export const templateHash = (template: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex')
    .slice(0, 10);

/** The label the simulated Deployment controller puts on its pods (its Deployment's name): a field the store indexes. */
export const LABEL = 'nodewright.sim/deployment';

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export interface DeploymentSpec {
  replicas?: number;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

/** Bound and Ready: what a rolling update counts as available. */
export const isReady = (p: KubeObject): boolean =>
  Boolean(podNodeName(p)) &&
  ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** What the Deployment's status counts as ready: bound and Running. */
export const isRunning = (p: KubeObject): boolean => Boolean(podNodeName(p)) && (p.status as { phase?: string } | undefined)?.phase === 'Running';

/** Pods a rolling update may take down at once: maxUnavailable (default 25 %, rounded down), at least 1. */
export function maxUnavailable(spec: DeploymentSpec, replicas: number): number {
  if (spec.strategy?.type === 'Recreate') return Number.MAX_SAFE_INTEGER;
  const v = spec.strategy?.rollingUpdate?.maxUnavailable ?? '25%';
  const n = typeof v === 'number' ? v : /%$/.test(v) ? Math.floor((Number(v.slice(0, -1)) / 100) * replicas) : Number(v);
  return Math.max(1, Number.isFinite(n) ? n : 1);
}

/**
 * The Deployment's ReplicaSets as objects (the current template's at `replicas`, older ones at 0), owned by
 * the Deployment, so PodDisruptionBudgets count the replicas the Deployment wants (as the disruption
 * controller does) rather than the pods that happen to exist.
 */
export function reconcileReplicaSets(store: KubeStore, d: KubeObject, currentHash: string, replicas: number, podHashes: Set<string>): number {
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

/** Creates the Deployment's pod `podName` Pending from the template, owned by the current ReplicaSet. */
export function createPod(store: KubeStore, types: KubeTypes, d: KubeObject, hash: string, podName: string): void {
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
export function updateStatus(store: KubeStore, types: KubeTypes, d: KubeObject, replicas: number, ready: number): void {
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
