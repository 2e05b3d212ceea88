/**
 * CapacityBuffers in the provisioner (Karpenter's provisioning/buffers.go): each round plans the buffers' virtual pods
 * with the pending ones (after them: the lowest priority), so their chunks land on free room of existing nodes and
 * in-flight claims or on new claims; no event or nomination names a virtual pod. The buffers' status follows:
 * ReadyForProvisioning (the references resolved), Provisioning (True, FitsExistingCapacity, once every chunk fits
 * what runs or is launching; False, RequiresNewCapacity, while some needed a new node) and replicas.
 */
import { bufferReplicas, isVirtualPod, MAX_BUFFER_CHUNKS, virtualPods } from '../buffers/virtual-pods';
import { ActiveCapacity } from '../model/capacity-buffer';
import type { ResolvedBuffer } from '../model/capacity-buffer';
import type { StatusCondition } from '../model/karpenter';
import { Annotation } from '../model/labels';
import type { ClusterSnapshot } from '../ports';
import type { Plan, SchedulingInput } from '../scheduling/types';
import type { LifecycleDeps } from './deps';
import { sameConditions } from './nodepool-status';

/** The scheduling input with the buffers' virtual pods added after the pending ones. */
export function withBufferPods(input: SchedulingInput, snapshot: Pick<ClusterSnapshot, 'capacityBuffers'>): SchedulingInput {
  const virtual = virtualPods(snapshot.capacityBuffers);
  return virtual.length ? { ...input, pods: [...input.pods, ...virtual] } : input;
}

/** The plan as the pods see it: virtual pods left out of the placements, claims and unschedulable list (events, logs). */
export function realPods(plan: Plan): Plan {
  return {
    nodeClaims: plan.nodeClaims.map((c) => ({ ...c, pods: c.pods.filter((p) => !isVirtualPod(p)) })),
    existingPlacements: plan.existingPlacements.map((e) => ({ ...e, pods: e.pods.filter((p) => !isVirtualPod(p)) })),
    unschedulable: plan.unschedulable.filter((u) => !isVirtualPod(u.pod)),
    ignored: plan.ignored.filter((u) => !isVirtualPod(u.pod)),
  };
}

const keyOf = (r: ResolvedBuffer) => `${r.buffer.namespace}/${r.buffer.name}`;
const podBuffer = (p: { annotations: Record<string, string> }) => `${p.annotations[Annotation.bufferNamespace]}/${p.annotations[Annotation.bufferName]}`;

function conditionsOf(r: ResolvedBuffer, plan: Plan): StatusCondition[] {
  if (r.unresolved) {
    const ready: StatusCondition = { type: 'ReadyForProvisioning', status: 'False', reason: r.unresolved.reason, message: r.unresolved.message };
    return [ready, { type: 'Provisioning', status: 'False', reason: 'NotReadyForProvisioning', message: 'Buffer is not ReadyForProvisioning' }];
  }
  const ready: StatusCondition = { type: 'ReadyForProvisioning', status: 'True', reason: 'Resolved', message: 'Pod template resolved successfully' };
  // A strategy nodewright does not plan (Karpenter's too): its Provisioning condition is left alone.
  if (r.buffer.provisioningStrategy !== ActiveCapacity) return [ready];
  const desired = bufferReplicas(r);
  if (desired === 0) return [ready, { type: 'Provisioning', status: 'False', reason: 'BufferEmpty', message: 'Buffer has zero desired replicas' }];
  const mine = (p: { annotations: Record<string, string> }) => podBuffer(p) === keyOf(r);
  const fresh = plan.nodeClaims.reduce((n, c) => n + c.pods.filter(mine).length, 0);
  const failed = [...plan.unschedulable, ...plan.ignored].filter((u) => mine(u.pod)).length;
  const planned = plan.existingPlacements.reduce((n, e) => n + e.pods.filter(mine).length, fresh + failed);
  if (planned < desired) {
    const message = `${planned}/${desired} virtual pods planned: at most ${MAX_BUFFER_CHUNKS} chunks are planned across all buffers`;
    return [ready, { type: 'Provisioning', status: 'False', reason: 'RequiresNewCapacity', message }];
  }
  if (fresh + failed > 0) {
    const message = `${fresh}/${desired} virtual pods required new capacity, ${failed} failed`;
    return [ready, { type: 'Provisioning', status: 'False', reason: 'RequiresNewCapacity', message }];
  }
  return [ready, { type: 'Provisioning', status: 'True', reason: 'FitsExistingCapacity', message: `All ${desired} virtual pods fit on existing capacity` }];
}

/** Writes each buffer's status when it changed (a failed write is logged; the next round writes it). */
export async function reconcileBufferStatuses(
  deps: Pick<LifecycleDeps, 'cluster' | 'log'>,
  snapshot: Pick<ClusterSnapshot, 'capacityBuffers'>,
  plan: Plan,
): Promise<void> {
  for (const r of snapshot.capacityBuffers ?? []) {
    const conditions = conditionsOf(r, plan);
    const replicas = r.unresolved ? undefined : bufferReplicas(r);
    if (sameConditions(conditions, r.buffer.observedConditions) && replicas === r.buffer.observedReplicas) continue;
    try {
      await deps.cluster.patchCapacityBufferStatus(r.buffer, { ...(replicas !== undefined ? { replicas } : {}), conditions });
    } catch (e) {
      deps.log.warn('could not write capacitybuffer status', { capacitybuffer: keyOf(r), error: e instanceof Error ? e.message : String(e) });
    }
  }
}
