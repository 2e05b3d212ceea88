/** The autoscaling/v1 Scale subresource of Deployments, ReplicaSets and StatefulSets. */
import { applyPatch } from './patch';
import { selectorToString } from './selectors';
import { conflict, invalid } from './status';
import type { KubeStore } from './store';
import type { Json, KubeObject, ResourceType } from './types';

export function readScale(store: KubeStore, rt: ResourceType, namespace: string | undefined, name: string): Json {
  const o = store.get(rt, namespace, name);
  return toScale(o);
}

function toScale(o: KubeObject): Json {
  const m = o.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: Number(o.spec?.replicas ?? 1) },
    status: { replicas: Number(o.status?.replicas ?? 0), selector: selectorToString(o.spec?.selector as Json | undefined) },
  };
}

export function writeScale(
  store: KubeStore,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  method: string,
  contentType: string | undefined,
  body: unknown,
): Json {
  const o = store.get(rt, namespace, name);
  const current = toScale(o);
  const next = (method === 'PATCH' ? applyPatch(contentType, current, body) : body) as Json;
  const meta = (next?.metadata ?? {}) as { resourceVersion?: string };
  if (meta.resourceVersion && meta.resourceVersion !== o.metadata.resourceVersion) {
    throw conflict(rt.group, rt.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
  const replicas = (next?.spec as Json | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', name, 'spec.replicas', `Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`);
  }
  o.spec = { ...(o.spec ?? {}), replicas };
  delete o.metadata.resourceVersion;
  return toScale(store.update(rt, namespace, name, o));
}
