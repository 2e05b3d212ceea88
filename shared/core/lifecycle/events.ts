/**
 * Kubernetes Events nodewright records, with Karpenter's reasons and wording where Karpenter has them
 * (provisioning/scheduling/events.go, nodeclaim/lifecycle/events.go). Best effort: an event that cannot be
 * written is logged, never fails the work it describes.
 */
import type { NodeClaim } from '../model/karpenter';
import type { Pod } from '../model/kube';
import type { KubeEvent } from '../ports';
import type { LifecycleDeps } from './deps';

const podRef = (p: Pod): KubeEvent['object'] => ({ kind: 'Pod', name: p.name, namespace: p.namespace, uid: p.uid });
const claimRef = (c: Pick<NodeClaim, 'name' | 'uid'>): KubeEvent['object'] => ({ kind: 'NodeClaim', name: c.name, ...(c.uid ? { uid: c.uid } : {}) });

/** Karpenter's NominatePodEvent: where the pod should schedule (a new claim, or an existing node / claim). */
export const nominated = (pod: Pod, target: string): KubeEvent => ({
  object: podRef(pod),
  type: 'Normal',
  reason: 'Nominated',
  message: `Pod should schedule on: ${target}`,
});

/** Karpenter's PodFailedToScheduleEvent (deduplicated for 5 minutes). */
export const failedScheduling = (pod: Pod, reason: string): KubeEvent => ({
  object: podRef(pod),
  type: 'Warning',
  reason: 'FailedScheduling',
  message: `Failed to schedule pod, ${reason}`,
  dedupeSeconds: 300,
});

/** Karpenter's InsufficientCapacityError event on the NodeClaim. */
export const insufficientCapacity = (claim: Pick<NodeClaim, 'name' | 'uid'>, message: string): KubeEvent => ({
  object: claimRef(claim),
  type: 'Warning',
  reason: 'InsufficientCapacityError',
  message: `NodeClaim ${claim.name} event: ${message.slice(0, 300)}`,
});

/** Karpenter's NodeClassNotReady event on the NodeClaim: its node class cannot launch (no profile, no AMI, …). */
export const nodeClassNotReady = (claim: Pick<NodeClaim, 'name' | 'uid'>, message: string): KubeEvent => ({
  object: claimRef(claim),
  type: 'Warning',
  reason: 'NodeClassNotReady',
  message: `NodeClaim ${claim.name} event: ${message.slice(0, 300)}`,
});

/** A launch IAM refused (nodewright's, beyond Karpenter): what was denied, and where to look. */
export const launchUnauthorized = (claim: Pick<NodeClaim, 'name' | 'uid'>, message: string): KubeEvent => ({
  object: claimRef(claim),
  type: 'Warning',
  reason: 'LaunchUnauthorized',
  message:
    `NodeClaim ${claim.name} event: ${message.slice(0, 300)}; the launch function's role lacks a permission, or the ` +
    `node class names a role or instance profile the deployment may not pass (nodeRoleName; docs/deploy.md)`,
});

/** Lifecycle steps of a NodeClaim (Karpenter logs these; nodewright also records them, for `kubectl describe`). */
export const claimStep = (claim: Pick<NodeClaim, 'name' | 'uid'>, reason: 'Launched' | 'Registered' | 'Initialized', message: string): KubeEvent => ({
  object: claimRef(claim),
  type: 'Normal',
  reason,
  message,
});

/**
 * A NodePool or EC2NodeClass nodewright cannot read (beside its ValidationSucceeded=False condition): the reason
 * names the field. Written when the status changes to it, so once per change, not every round.
 */
export const invalidObjectEvent = (
  kind: 'NodePool' | 'EC2NodeClass',
  name: string,
  reason: 'NodePoolValidationFailed' | 'NodeClassValidationFailed',
  message: string,
): KubeEvent => ({
  object: { kind, name },
  type: 'Warning',
  reason,
  message: message.slice(0, 1000),
});

/** At most this many events are written at once (each is one API request). */
const CONCURRENCY = 8;

/**
 * Records the events, a few at a time; failures are logged once and dropped. With `within`, no event is started once
 * that long has passed: events are best effort and must not hold up the work they describe (client-go's broadcaster
 * drops them when its queue is full); deduplicated ones cost nothing, so a later call goes on where this one stopped.
 */
export async function recordEvents(
  deps: Pick<LifecycleDeps, 'cluster' | 'log'> & { clock?: Pick<LifecycleDeps['clock'], 'now'> },
  events: KubeEvent[],
  within?: { ms: number },
): Promise<void> {
  let failed = false;
  const queue = [...events];
  const until = within && deps.clock ? deps.clock.now() + within.ms : Infinity;
  const worker = async () => {
    for (let e = queue.shift(); e && (deps.clock?.now() ?? 0) < until; e = queue.shift()) {
      try {
        await deps.cluster.recordEvent(e);
      } catch (err) {
        if (!failed)
          deps.log.warn('could not record event', {
            reason: e.reason,
            object: `${e.object.kind}/${e.object.name}`,
            error: err instanceof Error ? err.message : String(err),
          });
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, events.length) }, worker));
}

/** Karpenter's terminator events (node/termination/terminator/events): what a drain did, and what holds it. */
export const evictedPod = (pod: Pod, reason: string): KubeEvent => ({
  object: podRef(pod),
  type: 'Normal',
  reason: 'Evicted',
  message: `Evicted pod: ${reason}`,
});

export const disruptedPodDelete = (pod: Pod, graceSeconds: number, terminationTime: string): KubeEvent => ({
  object: podRef(pod),
  type: 'Normal',
  reason: 'Disrupted',
  message: `Deleting the pod to accommodate the terminationTime ${terminationTime} of the node. The pod was granted ${graceSeconds} seconds of grace-period of its ${pod.terminationGracePeriodSeconds} terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.`,
});

export const nodeFailedToDrain = (node: { name: string; uid?: string }, why: string): KubeEvent => ({
  object: { kind: 'Node', name: node.name, ...(node.uid ? { uid: node.uid } : {}) },
  type: 'Warning',
  reason: 'FailedDraining',
  message: `Failed to drain node, ${why}`,
});
