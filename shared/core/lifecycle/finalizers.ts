/**
 * The `karpenter.sh/termination` finalizer (docs/karpenter-reference.md §6.6). nodewright puts it on the NodeClaims it creates
 * and on their Nodes at registration, so a `kubectl delete` only marks the object (deletionTimestamp) and
 * nodewright drains and terminates before letting go. Letting go means: remove our finalizer (any other
 * controller's stay), then delete. An object already being deleted goes when our finalizer does; one that still
 * has other finalizers is only marked by the delete, and goes when they are removed.
 */
import { isNodeClaimNotFoundError } from '../errors';
import { Finalizer } from '../model/labels';
import type { ClusterClient } from '../ports';

/** Removes nodewright's finalizer from the Node and deletes it. A missing Node is success. */
export async function deleteAndReleaseNode(cluster: ClusterClient, name: string): Promise<void> {
  const node = await cluster.getNode(name);
  if (!node) return;
  if (node.finalizers.includes(Finalizer.termination)) {
    await cluster.patchNode(name, { finalizers: node.finalizers.filter((f) => f !== Finalizer.termination) });
  }
  await cluster.deleteNode(name);
}

/** Removes nodewright's finalizer from the NodeClaim and deletes it. A missing claim is success (false). */
export async function deleteAndReleaseNodeClaim(cluster: ClusterClient, name: string): Promise<boolean> {
  const claim = await cluster.getNodeClaim(name);
  if (!claim) return false;
  if (claim.finalizers.includes(Finalizer.termination)) {
    try {
      await cluster.patchNodeClaimMetadata(name, { finalizers: claim.finalizers.filter((f) => f !== Finalizer.termination) });
    } catch (e) {
      if (!isNodeClaimNotFoundError(e)) throw e; // gone meanwhile: the desired end state
    }
  }
  await cluster.deleteNodeClaim(name);
  return true;
}

/** The finalizer list with nodewright's added (unchanged when present). */
export function withTerminationFinalizer(finalizers: readonly string[]): string[] {
  return finalizers.includes(Finalizer.termination) ? [...finalizers] : [...finalizers, Finalizer.termination];
}
