/**
 * A CapacityBuffer's chunks as virtual pods (Karpenter's pkg/state/virtualpods, Cluster Autoscaler's buffer
 * semantics): how many (replicas and percentage, the larger; limits an upper bound, or alone the count that fits),
 * and the pods themselves — never created in the cluster, marked so no event, nomination, PDB or drain ever sees them.
 */
import { ActiveCapacity, type CapacityBuffer, type ResolvedBuffer } from '../model/capacity-buffer';
import { Annotation } from '../model/labels';
import type { Pod } from '../model/kube';

/** ceil(scalable × percentage / 100), at least 1 when both are positive. */
export function percentageReplicas(scalable: number, percentage: number): number {
  const n = Math.ceil((scalable * percentage) / 100);
  return n < 1 && percentage > 0 && scalable > 0 ? 1 : n;
}

/** How many chunks of `requests` fit in the limits (per resource both name, floored; the smallest), or undefined when none is shared. */
function limitReplicas(limits: NonNullable<CapacityBuffer['limits']>, requests: Pod['requests']): number | undefined {
  let min: number | undefined;
  for (const [k, limit] of Object.entries(limits)) {
    const r = requests[k];
    if (!r) continue;
    const n = Math.floor(limit / r);
    min = min === undefined ? n : Math.min(min, n);
  }
  return min;
}

/** The buffer's desired chunks: max(replicas, percentage of the scalable's), capped by limits; limits alone when neither is set. */
export function bufferReplicas(r: ResolvedBuffer): number {
  const b = r.buffer;
  const candidates: number[] = [];
  if (b.replicas !== undefined) candidates.push(b.replicas);
  if (b.percentage !== undefined && b.scalableRef && (r.scalableReplicas ?? 0) > 0) candidates.push(percentageReplicas(r.scalableReplicas!, b.percentage));
  const desired = candidates.length ? Math.max(...candidates) : 0;
  const byLimits = b.limits && r.template ? limitReplicas(b.limits, r.template.requests) : undefined;
  if (byLimits === undefined) return desired;
  return candidates.length ? Math.min(desired, byLimits) : byLimits;
}

/** A chunk never blocks a disruption: the template's do-not-disrupt stays with the real pods. */
function withoutDoNotDisrupt(annotations: Record<string, string>): Record<string, string> {
  const { [Annotation.doNotDisrupt]: _dropped, ...rest } = annotations;
  return rest;
}

export const isVirtualPod = (p: Pod): boolean => p.annotations[Annotation.bufferPod] === 'true';

/**
 * The most chunks planned across all buffers: each provisioner round and disruption pass plans them, so a buffer of
 * `limits: {cpu: "1000"}` over a 10m template must not cost a hundred thousand pods every round.
 */
export const MAX_BUFFER_CHUNKS = 1_000;

/** The virtual pods of every active buffer that resolved: `<buffer>-buffer-<i>`, pending, owned by nothing; at most MAX_BUFFER_CHUNKS. */
export function virtualPods(buffers: readonly ResolvedBuffer[] | undefined): Pod[] {
  const out: Pod[] = [];
  for (const r of buffers ?? []) {
    const b = r.buffer;
    if (!r.template || b.provisioningStrategy !== ActiveCapacity) continue;
    const n = Math.min(bufferReplicas(r), MAX_BUFFER_CHUNKS - out.length);
    for (let i = 0; i < n; i++) {
      const name = `${b.name}-buffer-${i}`;
      out.push({
        ...r.template,
        uid: `capacitybuffer/${b.namespace}/${b.name}/${i}`,
        namespace: b.namespace,
        name,
        annotations: {
          ...withoutDoNotDisrupt(r.template.annotations),
          [Annotation.bufferPod]: 'true',
          [Annotation.bufferName]: b.name,
          [Annotation.bufferNamespace]: b.namespace,
        },
        // Karpenter's VirtualPodPriority: below every real pod.
        priority: -2147483648,
        phase: 'Pending',
        unschedulable: true,
        nodeName: undefined,
        nominatedNodeName: undefined,
        owner: undefined,
        volumeClaims: [],
      });
    }
  }
  return out;
}
