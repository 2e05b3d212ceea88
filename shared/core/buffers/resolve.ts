/** Resolving a CapacityBuffer's references (Karpenter's apps.ResolveCapacityBuffer): the chunk's pod and the scalable's replicas. */
import type { CapacityBuffer, ResolvedBuffer } from '../model/capacity-buffer';
import type { Pod } from '../model/kube';

/** Kinds a scalableRef may name (Karpenter's and Cluster Autoscaler's). */
const ScalableKinds = ['Deployment', 'ReplicaSet', 'StatefulSet'] as const;

export interface BufferLookup {
  podTemplate(namespace: string, name: string): Pod | undefined;
  scalable(namespace: string, kind: string, name: string): { template: Pod; replicas: number } | undefined;
}

export function resolveBuffer(b: CapacityBuffer, lookup: BufferLookup): ResolvedBuffer {
  if (b.podTemplateRef) {
    const template = lookup.podTemplate(b.namespace, b.podTemplateRef);
    return template
      ? { buffer: b, template }
      : { buffer: b, unresolved: { reason: 'PodTemplateNotFound', message: `podtemplate ${b.namespace}/${b.podTemplateRef} not found` } };
  }
  if (b.scalableRef) {
    const group = b.scalableRef.apiGroup ?? '';
    if (group !== '' && group !== 'apps') {
      return { buffer: b, unresolved: { reason: 'ResolutionFailed', message: `scalableRef apiGroup ${group} is not supported (apps)` } };
    }
    if (!(ScalableKinds as readonly string[]).includes(b.scalableRef.kind)) {
      return {
        buffer: b,
        unresolved: { reason: 'ResolutionFailed', message: `scalableRef kind ${b.scalableRef.kind} is not supported (${ScalableKinds.join(', ')})` },
      };
    }
    const s = lookup.scalable(b.namespace, b.scalableRef.kind, b.scalableRef.name);
    return s
      ? { buffer: b, template: s.template, scalableReplicas: s.replicas }
      : {
          buffer: b,
          unresolved: { reason: 'ScalableRefNotFound', message: `${b.scalableRef.kind.toLowerCase()} ${b.namespace}/${b.scalableRef.name} not found` },
        };
  }
  return { buffer: b, unresolved: { reason: 'ResolutionFailed', message: 'Neither podTemplateRef nor scalableRef is set' } };
}
