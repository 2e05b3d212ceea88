/** Karpenter's provisionable-pod rule (docs/karpenter-reference.md §2.1): the pods the provisioner should find capacity for. */
import type { Pod } from '../../core/model/kube';

/**
 * No node yet, kube-scheduler already marked it Unschedulable, not nominated to a node (preemption), not owned
 * by a DaemonSet or a Node (static/mirror pods), and not terminal or terminating.
 */
export function isProvisionable(pod: Pod): boolean {
  if (pod.nodeName) return false;
  if (!pod.unschedulable) return false;
  if (pod.nominatedNodeName) return false;
  if (pod.owner && (pod.owner.kind === 'DaemonSet' || pod.owner.kind === 'Node')) return false;
  if (pod.deletionTimestamp !== undefined) return false;
  if (pod.phase === 'Succeeded' || pod.phase === 'Failed') return false;
  return true;
}
