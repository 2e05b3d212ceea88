/** Provisioning helpers: which pods trigger a batch, and the instance types each pool may use right now. */
import type { InstanceType } from '../instance-types/types';
import { applyOverlays, resolveOverlays, type OverlayResolution } from '../instance-types/overlays';
import type { Pod } from '../model/kube';
import type { ClusterSnapshot, UnavailableOffering } from '../ports';
import type { LifecycleDeps } from './deps';
import type { EpochMs } from '../time';

/** Karpenter's IsProvisionable (docs/karpenter-reference.md §2.1): unbound, failed by kube-scheduler, not nominated, not DaemonSet/Node-owned. */
export function isProvisionable(pod: Pod): boolean {
  return (
    !pod.nodeName &&
    pod.phase === 'Pending' &&
    pod.unschedulable === true &&
    !pod.nominatedNodeName &&
    pod.deletionTimestamp === undefined &&
    pod.owner?.kind !== 'DaemonSet' &&
    pod.owner?.kind !== 'Node'
  );
}

export function provisionablePods(snapshot: ClusterSnapshot): Pod[] {
  return snapshot.pods.filter(isProvisionable);
}

/** Offerings in the ICE cache (not yet expired) become unavailable. */
export function applyUnavailable(types: InstanceType[], unavailable: UnavailableOffering[], nowMs: EpochMs): InstanceType[] {
  const live = unavailable.filter((u) => u.expiresAt > nowMs);
  if (live.length === 0) return types;
  const keys = new Set(live.map((u) => `${u.capacityType}:${u.instanceType}:${u.zone}`));
  return types.map((it) => ({
    ...it,
    offerings: it.offerings.map((o) => (keys.has(`${o.capacityType}:${it.name}:${o.zone}`) ? { ...o, available: false } : o)),
  }));
}

/** CloudProvider.instanceTypes per usable pool, NodeOverlays and the ICE cache applied. A pool whose class fails is skipped with a log line. */
export async function instanceTypesByPool(
  deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'log' | 'store'>,
  snapshot: ClusterSnapshot,
): Promise<Record<string, InstanceType[]>> {
  return (await poolInstanceTypes(deps, snapshot)).types;
}

/** instanceTypesByPool, and how the snapshot's NodeOverlays resolved (absent when there are none). */
export async function poolInstanceTypes(
  deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'log' | 'store'>,
  snapshot: ClusterSnapshot,
): Promise<{ types: Record<string, InstanceType[]>; overlays?: OverlayResolution }> {
  // The ICE cache only steers away from offerings that just failed: when it cannot be read, plan without it
  // (a launch into a still-unavailable offering fails fast and marks it again) rather than plan nothing.
  const unavailable = await deps.store.unavailableOfferings().catch((e: unknown) => {
    deps.log.warn('unavailable offerings could not be read; planning without them', { error: e instanceof Error ? e.message : String(e) });
    return [];
  });
  const now = deps.clock.now();
  const out: Record<string, InstanceType[]> = {};
  for (const pool of snapshot.nodePools) {
    if (pool.deleting || pool.ready === false) continue;
    const nodeClass = snapshot.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
    if (!nodeClass) {
      deps.log.warn('skipping nodepool: ec2nodeclass not found', { nodepool: pool.name, ec2nodeclass: pool.template.nodeClassRef.name });
      continue;
    }
    try {
      out[pool.name] = await deps.cloud.instanceTypes(nodeClass, pool);
    } catch (e) {
      deps.log.warn('skipping nodepool: instance types unavailable', {
        nodepool: pool.name,
        error: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
      });
    }
  }
  // Overlays see every offering (as Karpenter's store does), the ICE cache then marks what failed.
  const overlays = snapshot.nodeOverlays?.length ? resolveOverlays(snapshot.nodeOverlays, snapshot.nodePools, out) : undefined;
  for (const pool of Object.keys(out)) out[pool] = applyUnavailable(overlays ? applyOverlays(overlays, pool, out[pool]) : out[pool], unavailable, now);
  return { types: out, ...(overlays ? { overlays } : {}) };
}
