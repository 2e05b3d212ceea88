/**
 * Standby capacity (nodewright, `nodewright.io/standby-capacity` CapacityBuffers): chunks kept as instances that
 * joined the cluster once and were then stopped — no compute bill, only their volumes — and started when pending pods
 * need them, in seconds rather than a launch's minute. What is pure: how many chunks a buffer still needs launched,
 * the snapshot with the standby nodes offered as capacity, and which of them a plan wakes.
 */
import { StandbyCapacity, type ResolvedBuffer } from '../model/capacity-buffer';
import type { NodeClaim } from '../model/karpenter';
import type { Node, Pod } from '../model/kube';
import { Annotation, TaintKey } from '../model/labels';
import type { ClusterSnapshot } from '../ports/cluster-client';
import type { Plan } from '../scheduling/types';
import { bufferReplicas, isVirtualPod, virtualPods } from './virtual-pods';

export const isStandbyClaim = (c: Pick<NodeClaim, 'annotations'>): boolean => c.annotations[Annotation.standby] !== undefined;
const bufferKey = (r: ResolvedBuffer) => `${r.buffer.namespace}/${r.buffer.name}`;

/** Per standby buffer, the chunks not yet held by a live standby claim, as virtual pods (one buffer per entry). */
export function standbyShortfall(buffers: readonly ResolvedBuffer[] | undefined, claims: readonly NodeClaim[]): { buffer: ResolvedBuffer; pods: Pod[] }[] {
  const out: { buffer: ResolvedBuffer; pods: Pod[] }[] = [];
  for (const r of buffers ?? []) {
    if (r.buffer.provisioningStrategy !== StandbyCapacity || !r.template) continue;
    const held = claims
      .filter((c) => c.deletionTimestamp === undefined && c.annotations[Annotation.standby] === bufferKey(r))
      .reduce((n, c) => n + Number(c.annotations[Annotation.standbyChunks] ?? 0), 0);
    const missing = Math.max(0, bufferReplicas(r) - held);
    if (missing === 0) continue;
    // Planned as an active buffer of the missing chunks would be.
    const pods = virtualPods([
      { ...r, buffer: { ...r.buffer, provisioningStrategy: 'buffer.x-k8s.io/active-capacity', replicas: missing, limits: undefined, percentage: undefined } },
    ]);
    out.push({ buffer: r, pods });
  }
  return out;
}

/** Taints a standby node carries while stopped (its own, and what Kubernetes adds to a node that stopped posting). */
const STANDBY_TAINTS: ReadonlySet<string> = new Set([TaintKey.standby, TaintKey.unreachable, TaintKey.notReady, TaintKey.shutdown]);

/** True for a standby node that may take pending pods: stopped, or started for them and not Ready yet. */
const offered = (c: NodeClaim) =>
  isStandbyClaim(c) && (c.annotations[Annotation.standbyState] === 'stopped' || c.annotations[Annotation.standbyState] === 'starting');

/** The snapshot with the stopped (or starting) standby nodes shown as the Ready capacity they become when started. */
export function withStandbyCapacity(snapshot: ClusterSnapshot): ClusterSnapshot {
  const standby = new Set(snapshot.nodeClaims.filter(offered).map((c) => c.status.nodeName));
  if (standby.size === 0) return snapshot;
  const nodes = snapshot.nodes.map((n): Node => (standby.has(n.name) ? { ...n, ready: true, taints: n.taints.filter((t) => !STANDBY_TAINTS.has(t.key)) } : n));
  return { ...snapshot, nodes };
}

/** The stopped standby claims a plan placed real pods on: to be started. */
export function standbyToWake(snapshot: ClusterSnapshot, plan: Plan): NodeClaim[] {
  const byNode = new Map(
    snapshot.nodeClaims.filter((c) => isStandbyClaim(c) && c.annotations[Annotation.standbyState] === 'stopped').map((c) => [c.status.nodeName, c]),
  );
  const out: NodeClaim[] = [];
  for (const e of plan.existingPlacements) {
    const claim = byNode.get(e.node);
    if (claim && e.pods.some((p) => !isVirtualPod(p))) out.push(claim);
  }
  return out;
}
