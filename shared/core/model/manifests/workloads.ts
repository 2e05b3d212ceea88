/**
 * Workloads (Deployment, ReplicaSet, StatefulSet, Job) → the pods their controllers would create, so a
 * manifest can be planned or simulated without a cluster. Names and uids are deterministic.
 */
import type { PersistentVolumeClaim, Pod } from '../kube';
import { arr, num, obj, str, type Json, type PodContext } from './context';
import { podFromKube } from './pod';

type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'Job';
export const WorkloadKinds: ReadonlySet<string> = new Set<WorkloadKind>(['Deployment', 'ReplicaSet', 'StatefulSet', 'Job']);

export interface Workload {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  replicas: number;
  /** The pod template as a Pod named after the workload (no node, uid `<ns>/<name>`). */
  template: Pod;
  /** StatefulSet volumeClaimTemplates: each replica i gets PVC `<name>-<sts>-<i>`. */
  volumeClaimTemplates?: { name: string; storageClassName?: string }[];
}

/**
 * The most pods one manifest set may expand to (workload replicas plus standalone Pods). A plan is bounded
 * in time and memory; a larger set is a ManifestValidationError on the workload's replica field.
 */
export const MAX_EXPANDED_PODS = 100_000;

/** Owner written on the pods: a Deployment's pods are owned by its ReplicaSet. */
const OWNER_KIND: Record<WorkloadKind, string> = { Deployment: 'ReplicaSet', ReplicaSet: 'ReplicaSet', StatefulSet: 'StatefulSet', Job: 'Job' };

function replicasOf(kind: WorkloadKind, spec: Json): number {
  if (kind === 'Job') {
    const parallelism = num(spec.parallelism) ?? 1;
    const completions = num(spec.completions);
    return Math.max(0, completions === undefined ? parallelism : Math.min(parallelism, completions));
  }
  return Math.max(0, num(spec.replicas) ?? 1);
}

/** The field that sets a workload's pod count, for error messages: `spec.replicas`, or a Job's limiting field. */
export function replicasField(o: Json): string {
  const spec = obj(o.spec);
  if (str(o.kind) !== 'Job') return 'spec.replicas';
  const parallelism = num(spec.parallelism) ?? 1;
  const completions = num(spec.completions);
  return completions !== undefined && completions < parallelism ? 'spec.completions' : 'spec.parallelism';
}

export function workloadFromKube(o: Json, ctx?: PodContext): Workload {
  const kind = str(o.kind) as WorkloadKind;
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const namespace = str(metadata.namespace) || 'default';
  const name = str(metadata.name) ?? '';
  const template = obj(spec.template);
  const tplMeta = obj(template.metadata);
  const pod = podFromKube(
    {
      metadata: {
        labels: tplMeta.labels,
        annotations: tplMeta.annotations,
        name,
        namespace,
        uid: `${namespace}/${name}`,
        creationTimestamp: metadata.creationTimestamp,
        ownerReferences: [{ kind: OWNER_KIND[kind], name, controller: true }],
      },
      spec: template.spec,
    },
    { ...ctx, specPath: 'spec.template.spec' },
  );
  const w: Workload = { kind, namespace, name, replicas: replicasOf(kind, spec), template: pod };
  if (kind === 'StatefulSet') {
    const vcts = arr(spec.volumeClaimTemplates).map(obj);
    if (vcts.length) {
      w.volumeClaimTemplates = vcts.map((t) => {
        const sc = str(obj(t.spec).storageClassName);
        return sc === undefined ? { name: str(obj(t.metadata).name) ?? '' } : { name: str(obj(t.metadata).name) ?? '', storageClassName: sc };
      });
    }
  }
  return w;
}

/** The pods `<name>-0 … <name>-(n-1)` of a workload scaled to `replicas` (default: its own count). */
export function workloadPods(w: Workload, replicas = w.replicas): Pod[] {
  const pods: Pod[] = [];
  for (let i = 0; i < replicas; i++) {
    const name = `${w.name}-${i}`;
    const pod = structuredClone(w.template);
    pod.name = name;
    pod.uid = `${w.namespace}/${name}`;
    pod.volumeClaims = pod.volumeClaims.map((c) =>
      c.ephemeral && c.claimName.startsWith(`${w.name}-`) ? { ...c, claimName: `${name}${c.claimName.slice(w.name.length)}` } : c,
    );
    for (const t of w.volumeClaimTemplates ?? []) pod.volumeClaims.push({ claimName: `${t.name}-${w.name}-${i}` });
    pods.push(pod);
  }
  return pods;
}

/** The PVCs a StatefulSet's volumeClaimTemplates create for `replicas` pods (Pending until bound). */
export function workloadClaims(w: Workload, replicas = w.replicas): PersistentVolumeClaim[] {
  const out: PersistentVolumeClaim[] = [];
  for (let i = 0; i < replicas; i++) {
    for (const t of w.volumeClaimTemplates ?? []) {
      const pvc: PersistentVolumeClaim = { namespace: w.namespace, name: `${t.name}-${w.name}-${i}`, phase: 'Pending' };
      if (t.storageClassName !== undefined) pvc.storageClassName = t.storageClassName;
      out.push(pvc);
    }
  }
  return out;
}
