/** The terminate workflow's steps around the drain: resolve the target, taint, terminate, finalize (docs/karpenter-reference.md §4.6). */
import { ExecutionInputInvalidError, InstanceNotOwnedError, isNodeClaimNotFoundError } from '../errors';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import { Annotation, Label, TaintKey } from '../model/labels';
import type { TerminateInput } from './manual-input';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import { condition } from './claims';
import { deleteAndReleaseNode, deleteAndReleaseNodeClaim } from './finalizers';
import { addSeconds, epochMs, type EpochMs, toSeconds } from '../time';

/** What a terminate execution acts on. At least one of nodeClaimName / nodeName is set. */
export interface TerminationTarget {
  nodeClaimName?: string;
  nodeName?: string;
  providerID?: string;
  reason: string;
  /** Node repair's bound on the drain, from its start (the claim's terminationGracePeriod, at most this). */
  drainSeconds?: number;
}

export interface DrainingTarget extends TerminationTarget {
  /** When the drain stops waiting. */
  drainDeadlineMs: EpochMs;
  /** True when the deadline comes from terminationGracePeriod: remaining pods are then deleted, bypassing PDBs. */
  forceAtDeadline: boolean;
  /** Drain passes so far (EvictPods counts them to lengthen its waits). */
  passes?: number;
}

const endsWithInstance = (providerID: string | undefined, instanceId: string) => !!providerID && providerID.endsWith(`/${instanceId}`);

/** Resolves validated input to the claim/node/instance it names. Read-only; refuses what nodewright does not manage. */
export async function resolveTerminationTarget(deps: Pick<LifecycleDeps, 'cluster'>, input: TerminateInput): Promise<TerminationTarget> {
  const reason = input.reason ?? 'Manual';
  if (input.kind === 'claim') {
    const claim = await deps.cluster.getNodeClaim(input.nodeClaimName);
    if (!claim) throw new ExecutionInputInvalidError(`terminate execution input nodeClaimName: nodeclaim "${input.nodeClaimName}" does not exist`);
    return { ...targetOf(claim, reason), ...(input.drainSeconds !== undefined ? { drainSeconds: input.drainSeconds } : {}) };
  }
  // A manual execution by node or instance: the nodes and claims only (no pods).
  const snapshot = await deps.cluster.listObjects(['nodes', 'nodeClaims']);
  if (input.kind === 'node') {
    const node = snapshot.nodes.find((n) => n.name === input.nodeName);
    const claim = snapshot.nodeClaims.find((c) => c.status.nodeName === input.nodeName || (!!node?.providerID && c.status.providerID === node.providerID));
    if (!node && !claim) throw new ExecutionInputInvalidError(`terminate execution input nodeName: node "${input.nodeName}" does not exist`);
    if (!claim)
      throw new ExecutionInputInvalidError(
        `terminate execution input nodeName: node "${input.nodeName}" has no NodeClaim; nodewright only drains nodes it manages`,
      );
    return { ...targetOf(claim, reason), nodeName: input.nodeName };
  }
  const claim = snapshot.nodeClaims.find((c) => endsWithInstance(c.status.providerID, input.instanceId));
  if (!claim)
    throw new ExecutionInputInvalidError(
      `terminate execution input instanceId: instance "${input.instanceId}" belongs to no NodeClaim; nodewright only terminates instances it manages`,
    );
  const node = snapshot.nodes.find((n) => endsWithInstance(n.providerID, input.instanceId));
  return { ...targetOf(claim, reason), ...(node ? { nodeName: node.name } : {}) };
}

function targetOf(claim: NodeClaim, reason: string): TerminationTarget {
  return {
    nodeClaimName: claim.name,
    ...(claim.status.nodeName ? { nodeName: claim.status.nodeName } : {}),
    ...(claim.status.providerID ? { providerID: claim.status.providerID } : {}),
    reason,
  };
}

/**
 * Taints the node `karpenter.sh/disrupted:NoSchedule`, labels it out of external load balancers, and fixes
 * the drain deadline (claim's terminationGracePeriod, kept in the termination-timestamp annotation so a
 * retried step keeps the first deadline).
 */
export async function taintNode(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>,
  target: TerminationTarget,
  disruptedBy?: string,
): Promise<DrainingTarget> {
  const now = deps.clock.now();
  const claim = target.nodeClaimName ? await deps.cluster.getNodeClaim(target.nodeClaimName) : undefined;
  // Node repair bounds the drain: the claim's terminationGracePeriod, at most the repair policy's bound.
  const own = claim?.spec.terminationGracePeriod ?? null;
  const tgp = target.drainSeconds === undefined ? own : Math.min(own ?? Infinity, target.drainSeconds);
  const recorded = claim?.annotations[Annotation.terminationTimestamp];
  const recordedMs = recorded ? Date.parse(recorded) : Number.NaN;
  const drainDeadlineMs = Number.isFinite(recordedMs)
    ? epochMs(recordedMs)
    : tgp !== null
      ? addSeconds(now, tgp)
      : epochMs(now + LifecycleTimings.maxDrainWithoutGracePeriodMs);
  if (claim && tgp !== null && !recorded) {
    await deps.cluster.patchNodeClaimMetadata(claim.name, { annotations: { [Annotation.terminationTimestamp]: new Date(drainDeadlineMs).toISOString() } });
  }
  if (target.nodeName) {
    const node = await deps.cluster.getNode(target.nodeName);
    if (node) {
      const tainted = node.taints.some((t) => t.key === TaintKey.disrupted);
      const taints = tainted ? node.taints : [...node.taints, { key: TaintKey.disrupted, effect: 'NoSchedule' as const }];
      await deps.cluster.patchNode(node.name, {
        taints,
        labels: { [Label.excludeFromExternalLB]: 'true' },
        ...(disruptedBy ? { annotations: { [Annotation.disruptedBy]: disruptedBy } } : {}),
      });
      if (!tainted)
        deps.log.info('tainted node', { node: node.name, nodeclaim: target.nodeClaimName, taint: `${TaintKey.disrupted}:NoSchedule`, reason: target.reason });
    }
  }
  return { ...target, drainDeadlineMs, forceAtDeadline: tgp !== null, passes: 0 };
}

/**
 * Terminates the claim's instance — the one its `status.providerID` names, never one found by tag; an instance
 * already gone is success. A target whose providerID is not the claim's is refused (InstanceNotOwnedError,
 * nothing terminated); foreign instances are refused by the CloudProvider.
 */
export async function terminateInstance(
  deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics'>,
  target: TerminationTarget,
): Promise<TerminationTarget & { terminated: boolean }> {
  const claim = target.nodeClaimName ? await deps.cluster.getNodeClaim(target.nodeClaimName) : undefined;
  const own = claim?.status.providerID;
  if (own && target.providerID && own !== target.providerID) {
    throw new InstanceNotOwnedError(`instance ${target.providerID} is not nodeclaim "${claim.name}"'s (its providerID is ${own}); refusing to terminate it`);
  }
  let providerID = own ?? target.providerID;
  if (!providerID && target.nodeName) providerID = (await deps.cluster.getNode(target.nodeName))?.providerID;
  if (!providerID) return { ...target, terminated: false };
  // As Karpenter's termination controller: InstanceTerminating=True before the instance is deleted, so EC2's
  // shutting-down notice that follows is known for this termination's (interruption leaves it alone), and no
  // disruption pass or provisioning round counts the claim as capacity.
  if (claim && !conditionIsTrue(claim, 'InstanceTerminating'))
    await deps.cluster.patchNodeClaimStatus(claim.name, { conditions: [condition('InstanceTerminating', 'True', deps.clock.now())] }).catch((e: unknown) => {
      if (!isNodeClaimNotFoundError(e)) throw e;
    });
  try {
    await deps.cloud.delete(providerID);
  } catch (e) {
    if (!isNodeClaimNotFoundError(e)) {
      deps.metrics.count('karpenter_cloudprovider_errors_total', {
        controller: 'node.termination',
        method: 'Delete',
        provider: 'aws',
        error: e instanceof Error ? e.name : 'Error',
      });
      throw e;
    }
  }
  deps.log.info('terminated instance', { nodeclaim: target.nodeClaimName, node: target.nodeName, 'provider-id': providerID, reason: target.reason });
  return { ...target, providerID, terminated: true };
}

/**
 * Lets go of the Node and the NodeClaim once the instance is gone: each loses the `karpenter.sh/termination`
 * finalizer and is deleted, so both disappear. A claim or Node
 * already deleting (`kubectl delete`) or already gone is fine; a retried step changes nothing.
 */
/** Counted once: only the step that finds the claim still there (a retried step finds it gone). */
function recordTerminated(deps: Pick<LifecycleDeps, 'clock' | 'metrics'>, claim: NodeClaim, nodeName: string | undefined): void {
  const zone = claim.labels[Label.zone] ?? '';
  deps.metrics.count('karpenter_nodeclaims_terminated_total', { nodepool: claim.nodePool, capacity_type: claim.labels[Label.capacityType] ?? '', zone });
  if (!nodeName) return;
  deps.metrics.count('karpenter_nodes_terminated_total', { nodepool: claim.nodePool, zone });
  if (claim.deletionTimestamp !== undefined) {
    deps.metrics.observe(
      'karpenter_nodes_termination_duration_seconds',
      { nodepool: claim.nodePool },
      Math.max(0, toSeconds(deps.clock.now()) - toSeconds(claim.deletionTimestamp)),
    );
  }
}

export async function finalizeNodeClaim(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics' | 'store'>,
  target: TerminationTarget,
): Promise<{ nodeClaimName?: string; nodeName?: string; finalized: true }> {
  const claim = target.nodeClaimName ? await deps.cluster.getNodeClaim(target.nodeClaimName) : undefined;
  if (target.nodeName) {
    await deleteAndReleaseNode(deps.cluster, target.nodeName);
    deps.log.info('deleted node', { node: target.nodeName, nodeclaim: target.nodeClaimName });
  }
  if (claim) {
    await deleteAndReleaseNodeClaim(deps.cluster, claim.name);
    deps.log.info('deleted nodeclaim', { nodeclaim: claim.name, nodepool: claim.nodePool, node: target.nodeName, 'provider-id': target.providerID });
    recordTerminated(deps, claim, target.nodeName);
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'termination',
    action: 'terminated',
    reason: target.reason,
    ...(target.nodeClaimName ? { nodeClaims: [target.nodeClaimName] } : {}),
    ...(target.nodeName ? { nodes: [target.nodeName] } : {}),
  });
  return {
    ...(target.nodeClaimName ? { nodeClaimName: target.nodeClaimName } : {}),
    ...(target.nodeName ? { nodeName: target.nodeName } : {}),
    finalized: true,
  };
}
