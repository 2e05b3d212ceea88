/**
 * `consolidateAfter` counts from a node's last pod event (docs/karpenter-reference.md §4.2: Karpenter moves the NodeClaim's
 * `status.lastPodEventTime` on every pod bind or removal). Without a controller watching pods, nodewright
 * compares, on every disruption pass, the set of pods on each node with a fingerprint kept on its NodeClaim;
 * a change is a pod event at that pass's time. The first sighting only records the fingerprint (the claim keeps
 * its initialization time), so adopting a running cluster does not delay every consolidation.
 */
import { fnv1a64 } from '../model/hash';
import type { ClusterSnapshot } from '../ports/cluster-client';
import { wholeSecond, type EpochMs } from '../time';

export const PodsFingerprintAnnotation = 'nodewright.io/pods-fingerprint';

export interface PodEventUpdate {
  nodeClaim: string;
  fingerprint: string;
  /** Absent on the first sighting. */
  lastPodEventTime?: EpochMs;
}

export function podEventUpdates(snapshot: ClusterSnapshot, nowMs: EpochMs): PodEventUpdate[] {
  const podsByNode = new Map<string, string[]>();
  for (const p of snapshot.pods) {
    if (!p.nodeName || p.phase === 'Succeeded' || p.phase === 'Failed' || p.owner?.kind === 'DaemonSet') continue;
    const l = podsByNode.get(p.nodeName);
    if (l) l.push(p.uid);
    else podsByNode.set(p.nodeName, [p.uid]);
  }
  const out: PodEventUpdate[] = [];
  for (const c of snapshot.nodeClaims) {
    if (!c.status.nodeName || c.deletionTimestamp !== undefined) continue;
    const fingerprint = fnv1a64((podsByNode.get(c.status.nodeName) ?? []).sort().join('\n'));
    const previous = c.annotations[PodsFingerprintAnnotation];
    if (previous === fingerprint) continue;
    out.push(previous === undefined ? { nodeClaim: c.name, fingerprint } : { nodeClaim: c.name, fingerprint, lastPodEventTime: wholeSecond(nowMs) });
  }
  return out;
}

/** Applies the updates to the snapshot's objects, so the same pass sees them. */
export function applyPodEventUpdates(snapshot: ClusterSnapshot, updates: PodEventUpdate[]): void {
  const byName = new Map(updates.map((u) => [u.nodeClaim, u]));
  for (const c of snapshot.nodeClaims) {
    const u = byName.get(c.name);
    if (!u) continue;
    c.annotations = { ...c.annotations, [PodsFingerprintAnnotation]: u.fingerprint };
    if (u.lastPodEventTime !== undefined) c.status = { ...c.status, lastPodEventTime: u.lastPodEventTime };
  }
}
