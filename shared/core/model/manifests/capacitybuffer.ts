/**
 * autoscaling.x-k8s.io/v1beta1 CapacityBuffer and v1 PodTemplate: zod validation with the CRD's bounds and CEL rules
 * (kubernetes-sigs/karpenter pkg/apis/crds/autoscaling.x-k8s.io_capacitybuffers.yaml), and mapping.
 */
import * as z from '../../zod';
import { ActiveCapacity, type CapacityBuffer } from '../capacity-buffer';
import type { StatusCondition } from '../karpenter';
import type { Pod } from '../kube';
import { arr, num, obj, resources, str, type Json, type ManifestContext, type PodContext } from './context';
import { podFromKube } from './pod';
import { nonNegativeQuantity, parseOrThrow } from './zod-helpers';

const count = (what: string) => z.number().check(z.int(`${what} must be an integer`), z.gte(0, `${what} must be at least 0`));

const bufferSchema = z.object({
  metadata: z.object({ name: z.string({ error: 'metadata.name is required' }).check(z.minLength(1, 'metadata.name is required')) }),
  spec: z
    .object(
      {
        podTemplateRef: z.optional(z.object({ name: z.string({ error: 'podTemplateRef.name is required' }).check(z.minLength(1)) })),
        scalableRef: z.optional(
          z.object({
            apiGroup: z.optional(z.string()),
            kind: z.string({ error: 'scalableRef.kind is required' }),
            name: z.string({ error: 'scalableRef.name is required' }),
          }),
        ),
        replicas: z.optional(count('replicas')),
        percentage: z.optional(count('percentage')),
        limits: z.optional(z.record(z.string(), nonNegativeQuantity)),
        provisioningStrategy: z.optional(z.string()),
      },
      { error: (iss) => (iss.input === undefined ? 'spec is required' : 'spec must be an object') },
    )
    .check(
      z.refine((s) => !s.podTemplateRef || s.replicas !== undefined || s.limits !== undefined, 'If podTemplateRef is set, replicas or limits must also be set'),
      z.refine((s) => !(s.podTemplateRef && s.scalableRef), 'You must define either PodTemplateRef or ScalableRef, but not both'),
    ),
});

const status = (v: unknown): StatusCondition['status'] => (v === 'True' || v === 'False' ? v : 'Unknown');

export function capacityBufferFromKube(o: Json, ctx?: ManifestContext): CapacityBuffer {
  const parsed = parseOrThrow(bufferSchema, o, ctx);
  const metadata = obj(o.metadata);
  const spec = parsed.spec;
  const b: CapacityBuffer = {
    namespace: str(metadata.namespace) || 'default',
    name: parsed.metadata.name,
    provisioningStrategy: spec.provisioningStrategy ?? ActiveCapacity,
  };
  const uid = str(metadata.uid);
  if (uid) b.uid = uid;
  const generation = num(metadata.generation);
  if (generation !== undefined) b.generation = generation;
  if (spec.podTemplateRef) b.podTemplateRef = spec.podTemplateRef.name;
  if (spec.scalableRef)
    b.scalableRef = { kind: spec.scalableRef.kind, name: spec.scalableRef.name, ...(spec.scalableRef.apiGroup ? { apiGroup: spec.scalableRef.apiGroup } : {}) };
  if (spec.replicas !== undefined) b.replicas = spec.replicas;
  if (spec.percentage !== undefined) b.percentage = spec.percentage;
  if (spec.limits) b.limits = resources(spec.limits, ctx, 'spec.limits');
  if (o.status !== undefined) {
    const st = obj(o.status);
    b.observedConditions = arr(st.conditions)
      .map(obj)
      .map((c) => ({ type: String(c.type), status: status(c.status), reason: String(c.reason ?? ''), message: String(c.message ?? '') }));
    const replicas = num(st.replicas);
    if (replicas !== undefined) b.observedReplicas = replicas;
  }
  return b;
}

/** A v1 PodTemplate: its `template` as a Pod of the template's namespace, named after it. */
export function podTemplateFromKube(o: Json, ctx?: PodContext): { namespace: string; name: string; template: Pod } {
  const metadata = obj(o.metadata);
  const namespace = str(metadata.namespace) || 'default';
  const name = str(metadata.name) ?? '';
  const template = obj(o.template);
  const tplMeta = obj(template.metadata);
  const pod = podFromKube(
    { metadata: { labels: tplMeta.labels, annotations: tplMeta.annotations, name, namespace, uid: `podtemplate/${namespace}/${name}` }, spec: template.spec },
    { ...ctx, specPath: 'template.spec' },
  );
  return { namespace, name, template: pod };
}
