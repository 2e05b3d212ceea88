/**
 * Rounds that add up (issue #29): a NodeClaim remembers the pods it was planned for (`namespace/name/uid` each, in the
 * `nodewright.io/planned-pods` annotation; a bare uid is read too). While it is not yet initialized, a later round counts those of them that
 * are still pending as on it, and does not plan them again. Without this a later round re-placed them onto the
 * in-flight claims with Karpenter's greedy pass, which does not reproduce a re-packed layout: pods that fit in the
 * claims as planned were "left over" and got extra nodes (80 pods on four claims: 18 extra nodes, removed as Empty
 * minutes later). A claim that fails or is deleted releases its pods, which are planned again.
 */
import { Annotation } from '../model/labels';
import { isVirtualPod } from '../buffers/virtual-pods';
import type { NodeClaim } from '../model/karpenter';
import type { Pod } from '../model/kube';
import type { ExistingNode } from '../scheduling/types';

/** The annotation's value for a claim planned for these pods (undefined when none has a uid). */
export function plannedPodsValue(pods: readonly Pod[]): string | undefined {
  // CapacityBuffer chunks are not pods: nothing may be nominated for them.
  const refs = pods.filter((p) => p.uid !== '' && !isVirtualPod(p)).map((p) => `${p.namespace}/${p.name}/${p.uid}`);
  return refs.length > 0 ? refs.join(',') : undefined;
}

/** The pods a claim was planned for, as its annotation names them (entries written before names were kept have none). */
export function plannedPodRefs(claim: NodeClaim): { namespace?: string; name?: string; uid: string }[] {
  const value = claim.annotations[Annotation.plannedPods];
  if (!value) return [];
  return value.split(',').map((entry) => {
    // Names and namespaces hold no "/"; a uid (a UUID) has none either, but tests' may: the rest is the uid.
    const parts = entry.split('/');
    return parts.length >= 3 ? { namespace: parts[0], name: parts[1], uid: parts.slice(2).join('/') } : { uid: entry };
  });
}

/** Which claim each pod was planned for, over the claims not yet initialized and not being deleted. */
function plannedFor(claims: readonly NodeClaim[], existing: readonly ExistingNode[]): Map<string, ExistingNode> {
  const byClaim = new Map(existing.filter((e) => e.nodeClaim !== undefined && !e.initialized && !e.markedForDeletion).map((e) => [e.nodeClaim!, e]));
  const out = new Map<string, ExistingNode>();
  for (const c of claims) {
    const node = byClaim.get(c.name);
    if (!node) continue;
    for (const { uid } of plannedPodRefs(c)) out.set(uid, node);
  }
  return out;
}

/**
 * The pending pods a claim in flight was planned for, counted on it (as bound there), and the pods left to place.
 * `pending`: the pods the round would place; `all`: every pod of the snapshot (a pod planned for a claim but not in
 * `pending` still takes its room there, if it is unbound).
 */
export function keepPlannedPods(
  claims: readonly NodeClaim[],
  existing: ExistingNode[],
  all: readonly Pod[],
  pending: readonly Pod[],
): { existing: ExistingNode[]; pending: Pod[] } {
  const planned = plannedFor(claims, existing);
  if (planned.size === 0) return { existing, pending: [...pending] };
  const kept = new Set<string>();
  const added = new Map<ExistingNode, Pod[]>();
  for (const p of all) {
    const node = p.nodeName || p.deletionTimestamp !== undefined ? undefined : planned.get(p.uid);
    if (!node) continue;
    kept.add(p.uid);
    const list = added.get(node) ?? [];
    list.push({ ...p, nodeName: node.name });
    added.set(node, list);
  }
  return {
    existing: existing.map((e) => (added.has(e) ? { ...e, pods: [...e.pods, ...added.get(e)!] } : e)),
    pending: pending.filter((p) => !kept.has(p.uid)),
  };
}
