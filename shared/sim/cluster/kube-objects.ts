/** Typed access to the fake API server's store for the simulated kube-side controllers. */
import type { PersistentVolume } from '../../core/model/kube';
import { pvFromKube } from '../../core/model/from-kube';
import type { KubeStore } from '../kube/store';
import type { KubeObject, ResourceType } from '../kube/types';

export interface KubeTypes {
  pod: ResourceType;
  node: ResourceType;
  deployment: ResourceType;
  daemonSet: ResourceType;
  nodeClaim: ResourceType;
  event: ResourceType | undefined;
}

export function kubeTypes(store: KubeStore): KubeTypes {
  let event: ResourceType | undefined;
  try {
    event = store.typeOf('v1', 'Event');
  } catch {
    event = undefined;
  }
  return {
    pod: store.typeOf('v1', 'Pod'),
    node: store.typeOf('v1', 'Node'),
    deployment: store.typeOf('apps/v1', 'Deployment'),
    daemonSet: store.typeOf('apps/v1', 'DaemonSet'),
    nodeClaim: store.typeOf('karpenter.sh/v1', 'NodeClaim'),
    event,
  };
}

/** Writes of the controllers kube-controller-manager runs (deployment, replicaset, daemonset, garbage collectors). */
export const KCM = { manager: 'kube-controller-manager' };

/** The name of the object's owner of that kind (ownerReferences). */
export const ownerName = (p: KubeObject, kind: string): string | undefined =>
  (p.metadata.ownerReferences as { kind?: string; name?: string }[] | undefined)?.find((r) => r.kind === kind)?.name;

const keyOf = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;
/** In LIST order (the store's: namespace/name compared as plain strings). */
export const inKeyOrder = (objs: KubeObject[]): KubeObject[] =>
  objs
    .map((o) => [keyOf(o), o] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, o]) => o);

export const listAll = (store: KubeStore, rt: ResourceType): KubeObject[] => store.list(rt).items;

/** Pods not finished and not being deleted. */
export const isLivePod = (p: KubeObject): boolean => {
  const phase = (p.status as { phase?: string } | undefined)?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
};

/** kube's IsPodActive (what a ReplicaSet counts): not finished, not being deleted. */
export const isActivePod = (p: KubeObject): boolean => isLivePod(p) && !p.metadata.deletionTimestamp;

export const podNodeName = (p: KubeObject): string | undefined => (p.spec as { nodeName?: string } | undefined)?.nodeName || undefined;

export const isDaemonSetPod = (p: KubeObject): boolean => (p.metadata.ownerReferences ?? []).some((r) => (r as { kind?: string }).kind === 'DaemonSet');

/** Sets (or replaces) one condition in a status.conditions array. */
export function withCondition(
  conditions: Record<string, unknown>[] | undefined,
  c: { type: string; status: string; reason?: string; message?: string },
  nowIso: string,
): Record<string, unknown>[] {
  const out = (conditions ?? []).filter((x) => x.type !== c.type);
  const old = (conditions ?? []).find((x) => x.type === c.type);
  out.push({
    ...c,
    lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : nowIso,
    ...(c.type === 'Ready' || old?.lastHeartbeatTime !== undefined ? { lastHeartbeatTime: nowIso } : {}),
  });
  return out;
}

/** The node's InternalIP, as its kubelet reports it (a pod's hostIP). */
export const hostIpOf = (node: KubeObject | Readonly<KubeObject> | undefined): string =>
  ((node?.status?.addresses as { type?: string; address?: string }[] | undefined) ?? []).find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';

/** The PersistentVolume a claim is bound to (its spec.volumeName), as the core models it; undefined while unbound. */
export function boundVolume(store: KubeStore, namespace: string, claimName: string): PersistentVolume | undefined {
  const pvc = store.peek(store.typeOf('v1', 'PersistentVolumeClaim'), namespace, claimName);
  const pvName = (pvc?.spec as { volumeName?: string } | undefined)?.volumeName;
  const pv = pvName ? store.peek(store.typeOf('v1', 'PersistentVolume'), undefined, pvName) : undefined;
  return pv ? pvFromKube(pv as never) : undefined;
}
