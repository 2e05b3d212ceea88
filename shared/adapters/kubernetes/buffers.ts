/**
 * CapacityBuffers as the provisioner and disruption read them: listed across namespaces (none, and no error, without
 * their CRD), each one's PodTemplate or scalable workload read by name (only those referenced), resolved by the core.
 */
import { resolveBuffer } from '../../core/buffers/resolve';
import type { CapacityBuffer, ResolvedBuffer } from '../../core/model/capacity-buffer';
import { capacityBufferFromKube, podTemplateFromKube } from '../../core/model/from-kube';
import type { Pod } from '../../core/model/kube';
import { workloadFromKube } from '../../core/model/manifests/workloads';
import { KarpenterResources, tolerate, type KubeApis } from './apis';
import { listAll } from './snapshot';

type Json = Record<string, unknown>;

const readers = (apis: KubeApis) => ({
  Deployment: apis.apps.readNamespacedDeployment,
  ReplicaSet: apis.apps.readNamespacedReplicaSet,
  StatefulSet: apis.apps.readNamespacedStatefulSet,
});

export async function readCapacityBuffers(apis: KubeApis, pageSize: number): Promise<ResolvedBuffer[]> {
  const items = await tolerate(
    () => listAll((c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.capacityBuffers, _continue: c, limit: l }), pageSize),
    [404],
    [] as Json[],
  );
  const buffers: CapacityBuffer[] = [];
  for (const o of items) {
    try {
      buffers.push(capacityBufferFromKube(o));
    } catch {
      // The API server's schema refuses these; one that slipped through is left alone.
    }
  }
  if (buffers.length === 0) return [];
  const templates = new Map<string, Pod | undefined>();
  const scalables = new Map<string, { template: Pod; replicas: number } | undefined>();
  const read = readers(apis);
  for (const b of buffers) {
    if (b.podTemplateRef) {
      const key = `${b.namespace}/${b.podTemplateRef}`;
      if (templates.has(key)) continue;
      const raw = await tolerate(() => apis.core.readNamespacedPodTemplate({ namespace: b.namespace, name: b.podTemplateRef! }), [404], undefined);
      templates.set(key, raw ? podTemplateFromKube(raw).template : undefined);
    } else if (b.scalableRef && b.scalableRef.kind in read) {
      const { kind, name } = b.scalableRef;
      const key = `${b.namespace}/${kind}/${name}`;
      if (scalables.has(key)) continue;
      const raw = await tolerate(() => read[kind as keyof typeof read]({ namespace: b.namespace, name }), [404], undefined);
      const w = raw ? workloadFromKube(raw) : undefined;
      scalables.set(key, w ? { template: w.template, replicas: w.replicas } : undefined);
    }
  }
  return buffers.map((b) =>
    resolveBuffer(b, {
      podTemplate: (ns, name) => templates.get(`${ns}/${name}`),
      scalable: (ns, kind, name) => scalables.get(`${ns}/${kind}/${name}`),
    }),
  );
}
