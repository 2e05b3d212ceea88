/**
 * One drain pass (docs/karpenter-reference.md §4.6): evict in Karpenter's four tiers, each finishing before the next starts,
 * through the Eviction API (PDB-aware). do-not-disrupt pods wait. At the terminationGracePeriod deadline,
 * remaining pods are deleted bypassing PDBs. The terminate machine repeats the pass after a Wait.
 */
import { DeadlineExceededError } from '../errors';
import type { Pod, Toleration } from '../model/kube';
import { doNotDisruptActive } from '../disruption/pods';
import { TaintKey } from '../model/labels';
import type { KubeEvent } from '../ports';
import { LifecycleTimings } from './deps';
import { disruptedPodDelete, evictedPod, nodeFailedToDrain, recordEvents } from './events';
import type { DrainingTarget } from './termination';
import { addSeconds, toRfc3339, type EpochMs } from '../time';
import { awaitVolumeDetachment, type DrainDeps } from './volume-detach';

export interface DrainPass {
  /** Every pod is gone and the node's volumes are detached (or the deadline passed): the instance may be terminated. */
  drained: boolean;
  /** The attached volumes the last pass waited for, once the pods were gone. */
  volumesAwaiting?: string[];
  /** Passes so far (this one included). */
  passes: number;
  /** How long the machine's WaitForDrain should wait before the next pass. */
  waitSeconds: number;
  evicted: number;
  blocked: number;
  waiting: number;
  deleted: number;
  remaining: number;
}

const CRITICAL = new Set(['system-cluster-critical', 'system-node-critical']);

/** 0: non-critical workload, 1: non-critical DaemonSet, 2: critical workload, 3: critical DaemonSet. */
export function evictionTier(pod: Pod): number {
  const critical = CRITICAL.has(pod.priorityClassName ?? '');
  const daemon = pod.owner?.kind === 'DaemonSet';
  return (critical ? 2 : 0) + (daemon ? 1 : 0);
}

const toleratesDisrupted = (t: Toleration) =>
  (t.operator === 'Exists' && (t.key === undefined || t.key === '' || t.key === TaintKey.disrupted) && (!t.effect || t.effect === 'NoSchedule')) ||
  (t.key === TaintKey.disrupted && (!t.effect || t.effect === 'NoSchedule'));

/** Pods the drain does not wait for: terminal, static (Node-owned), tolerating the disrupted taint, stuck terminating. */
function drainIgnores(pod: Pod, nowMs: EpochMs): boolean {
  if (pod.phase === 'Succeeded' || pod.phase === 'Failed') return true;
  if (pod.owner?.kind === 'Node') return true;
  if (pod.tolerations.some(toleratesDisrupted)) return true;
  return pod.deletionTimestamp !== undefined && nowMs - pod.deletionTimestamp > LifecycleTimings.stuckTerminatingMs;
}

/** Karpenter's IsDrainable: the drain evicts it (its volumes are waited for); not a static pod, not tolerating the taint, not stuck terminating. */
const drainable = (pod: Pod, nowMs: EpochMs) =>
  pod.owner?.kind !== 'Node' &&
  !pod.tolerations.some(toleratesDisrupted) &&
  !(pod.deletionTimestamp !== undefined && nowMs - pod.deletionTimestamp > LifecycleTimings.stuckTerminatingMs);

/**
 * Waits grow with the drain's age (5 s for the first minute — an interrupted node has two — then 10 s to ~5 min,
 * 30 s to ~30 min, then 2 min), so a drain that waits for hours stays far below Step Functions' 25,000-event
 * history limit; never past the next forced deletion.
 */
export function drainWaitSeconds(passes: number, untilNextForceMs?: number): number {
  const base = passes <= 12 ? 5 : passes <= 36 ? 10 : passes <= 96 ? 30 : 120;
  if (untilNextForceMs === undefined) return base;
  return Math.max(1, Math.min(base, Math.ceil(untilNextForceMs / 1000)));
}

export async function evictPods(deps: DrainDeps, target: DrainingTarget): Promise<DrainingTarget & DrainPass> {
  const passes = (target.passes ?? 0) + 1;
  const pass: DrainPass = { drained: false, passes, waitSeconds: drainWaitSeconds(passes), evicted: 0, blocked: 0, waiting: 0, deleted: 0, remaining: 0 };
  const now = deps.clock.now();
  const onNode = target.nodeName ? await deps.cluster.listPodsOnNode(target.nodeName) : [];
  const pods = onNode.filter((p) => !drainIgnores(p, now));
  if (pods.length === 0)
    return awaitVolumeDetachment(
      deps,
      { ...target, ...pass },
      onNode.filter((p) => !drainable(p, now)),
    );
  pass.remaining = pods.length;
  if (now >= target.drainDeadlineMs && !target.forceAtDeadline) {
    throw new DeadlineExceededError(
      `node "${target.nodeName}" still has ${pods.length} pod(s) after the drain deadline and its nodeclaim has no terminationGracePeriod; it stays tainted`,
    );
  }
  // terminationGracePeriod: a pod is deleted (PDBs and do-not-disrupt bypassed) once the deadline minus its own grace is reached.
  const live: Pod[] = [];
  const events: KubeEvent[] = [];
  const pdbBlocked: Pod[] = [];
  for (const pod of pods) {
    const forceAt = addSeconds(target.drainDeadlineMs, -pod.terminationGracePeriodSeconds);
    if (target.forceAtDeadline && now >= forceAt && pod.deletionTimestamp === undefined) {
      const grace = Math.max(1, Math.floor((target.drainDeadlineMs - now) / 1000));
      await deps.cluster.deletePod(pod, grace);
      pass.deleted++;
      events.push(disruptedPodDelete(pod, grace, toRfc3339(target.drainDeadlineMs)));
      deps.log.warn('deleted pod at terminationGracePeriod', { node: target.nodeName, pod: `${pod.namespace}/${pod.name}`, 'grace-period-seconds': grace });
    } else {
      live.push(pod);
    }
  }
  if (target.forceAtDeadline && live.length) {
    const nextForce = Math.min(...live.map((p) => addSeconds(target.drainDeadlineMs, -p.terminationGracePeriodSeconds)));
    pass.waitSeconds = drainWaitSeconds(passes, Math.max(0, nextForce - now));
  }
  const pending = live.filter((p) => p.deletionTimestamp === undefined);
  const firstTier = Math.min(...pending.map(evictionTier));
  for (const pod of pending.filter((p) => evictionTier(p) === firstTier)) {
    // do-not-disrupt "true", a duration not yet elapsed since the pod started, or do-not-evict "true": wait, not evict.
    if (doNotDisruptActive(pod, now)) {
      pass.waiting++;
      continue;
    }
    const result = await deps.cluster.evict(pod);
    if (result === 'blocked') {
      pass.blocked++;
      pdbBlocked.push(pod);
    } else {
      pass.evicted++;
      if (result === 'evicted') events.push(evictedPod(pod, target.reason));
    }
  }
  // kubectl describe node: why the drain is not done (a PDB, or pods that wait: do-not-disrupt, a later tier).
  const waiting = pass.remaining - pass.evicted - pass.deleted;
  if (target.nodeName && (pdbBlocked.length > 0 || waiting > 0)) {
    const node = await deps.cluster.getNode(target.nodeName).catch(() => undefined);
    const ref = { name: target.nodeName, ...(node?.uid ? { uid: node.uid } : {}) };
    for (const pod of pdbBlocked) events.push(nodeFailedToDrain(ref, `evicting pod violates a PDB (Pod=${pod.namespace}/${pod.name})`));
    events.push(nodeFailedToDrain(ref, `${waiting} pods are waiting to be evicted`));
  }
  await recordEvents(deps, events);
  deps.log.info('draining node', {
    node: target.nodeName,
    nodeclaim: target.nodeClaimName,
    tier: Number.isFinite(firstTier) ? firstTier + 1 : undefined,
    ...pass,
  });
  return { ...target, ...pass };
}
