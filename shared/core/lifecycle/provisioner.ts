/**
 * The provisioner (docs/karpenter-reference.md §2.1, §2.9): batch pending pods like Karpenter (1 s idle / 10 s max), solve,
 * create NodeClaims, start one `launch` execution per claim. Inside one invocation it keeps polling while
 * pods are pending, so reaction time is seconds, not the schedule's minute. A lease keeps it single. Each
 * round first keeps static NodePools at their replicas (static-pools.ts).
 */
import type { InstanceType } from '../instance-types/types';
import type { NodeClaim, NodePool } from '../model/karpenter';
import type { Pod } from '../model/kube';
import type { ClusterSnapshot } from '../ports';
import type { Plan, PlannedNodeClaim, SchedulingInput } from '../scheduling/types';
import { prettySlice } from '../model/pretty';
import type { LifecycleDeps } from './deps';
import { nodeClaimName } from './names';
import { instanceTypesByPool, provisionablePods } from './provisionable';
import { batch } from './provisioner-batch';
import { reconcileStandby, wakeStandby } from './standby';
import { withStandbyCapacity } from '../buffers/standby';
import { isVirtualPod, virtualPods } from '../buffers/virtual-pods';
import { realPods, reconcileBufferStatuses, withBufferPods } from './buffers';
import { withScheduledPools } from '../provisioning/pool-schedules';
import { reconcileStalledClaims } from './stalled';
import { failedScheduling, nominated, recordEvents } from './events';
import { reconcileNodePoolStatuses } from './nodepool-status';
import { reconcileStaticPools } from './static-pools';
import { epochMs, type EpochMs } from '../time';
import { eachLimited } from '../concurrency';
import { errorText } from '../errors';

/** The scheduling core as the provisioner uses it (shared/core/scheduling/solve.ts, shared/core/provisioning/from-snapshot.ts). */
export interface Planner {
  schedulingInputFromSnapshot(snapshot: ClusterSnapshot, instanceTypesByPool: Record<string, InstanceType[]>): SchedulingInput;
  solve(input: SchedulingInput): Plan | Promise<Plan>;
  plannedClaimToNodeClaim(claim: PlannedNodeClaim, name: string, nowMs: EpochMs, pool?: NodePool): NodeClaim;
}

export interface ProvisionerOptions {
  /** Lease holder identity (the Lambda request id). */
  holder: string;
  /** Stop starting new rounds after this long (ms). Default 50 s. */
  budgetMs?: number;
  /** Batch closes after this long without a new pod (ms). Default 1 s. */
  idleMs?: number;
  /** Batch closes after this long in total (ms). Default 10 s. */
  maxBatchMs?: number;
  /** Poll interval while pods stay pending (ms). Default 2 s. */
  pollMs?: number;
  /** One round only (manual reconcile, or the controller's call). */
  once?: boolean;
  /** The caller already batched the pods (the controller): plan at once. */
  batched?: boolean;
  /**
   * When the invocation must be done (the function's timeout less a margin). A round stops creating claims past it and
   * leaves the rest of its plan to the next round. Default: the budget plus 30 s.
   */
  deadlineMs?: EpochMs;
  /** NodeClaims created (and launches started) at once within a round. Default 16. */
  concurrency?: number;
}

export interface ProvisionerResult {
  skipped: boolean;
  rounds: number;
  nodeClaims: string[];
  unschedulable: number;
  /** Planned claims a round did not create (its deadline came, or the create failed): their pods are planned again. */
  deferred: number;
  /** Pods in the last snapshot read (none read: absent): whether the caller should keep that snapshot warm (KEPT_WARM_FROM). */
  clusterPods?: number;
  /** CapacityBuffers' virtual pods in the last snapshot read: the caller runs a round at least every 30 s while there are any. */
  bufferPods?: number;
}

const PROVISIONER_LEASE = 'provisioner';
const NOTHING_PLANNED = { nodeClaims: [], existingPlacements: [], unschedulable: [], ignored: [] };

const podNames = (pods: Pod[]) => pods.slice(0, 10).map((p) => `${p.namespace}/${p.name}`);

export async function runProvisioner(deps: LifecycleDeps, planner: Planner, options: ProvisionerOptions): Promise<ProvisionerResult> {
  const budgetMs = options.budgetMs ?? 50_000;
  const idleMs = options.idleMs ?? 1_000;
  const maxBatchMs = options.maxBatchMs ?? 10_000;
  const pollMs = options.pollMs ?? 2_000;
  const start = deps.clock.now();
  // One round (the controller's call) holds the lease briefly: if its release fails, the next round waits less.
  const leaseSeconds = options.once ? 60 : Math.ceil(budgetMs / 1000) + maxBatchMs / 1000 + 30;
  if (!(await deps.store.acquireLease(PROVISIONER_LEASE, options.holder, leaseSeconds))) {
    deps.log.info('provisioner already running elsewhere; skipping', { holder: options.holder });
    return { skipped: true, rounds: 0, nodeClaims: [], unschedulable: 0, deferred: 0 };
  }
  const result: ProvisionerResult = { skipped: false, rounds: 0, nodeClaims: [], unschedulable: 0, deferred: 0 };
  const limits: RoundLimits = { deadlineMs: options.deadlineMs ?? epochMs(start + budgetMs + 30_000), concurrency: options.concurrency ?? 16 };
  const handled = new Set<string>();
  const watched = new Set<string>();
  try {
    while (deps.clock.now() - start < budgetMs) {
      let snapshot = await deps.cluster.snapshot();
      result.clusterPods = snapshot.pods.length;
      // NodePool statuses (NODES, READY in `kubectl get nodepools`) from what this round reads.
      await reconcileNodePoolStatuses(deps, snapshot);
      // A claim whose launch never happened must not hold its pods until a 15-minute deadline.
      if ((await reconcileStalledClaims(deps, snapshot)).some((a) => a.type === 'delete')) snapshot = await deps.cluster.snapshot();
      // Standby capacity: stop what joined, launch what a buffer lacks (docs/scheduling.md#standby-capacity).
      if (snapshot.capacityBuffers?.length && (await reconcileStandby(deps, planner, snapshot, (x) => instanceTypesByPool(deps, x))).changed)
        snapshot = await deps.cluster.snapshot();
      // Static NodePools are kept at their replicas whether or not pods are pending.
      const statics = await reconcileStaticPools(deps, planner, snapshot, (s) => instanceTypesByPool(deps, s));
      if (statics.created.length + statics.deleted.length > 0) {
        result.nodeClaims.push(...statics.created);
        snapshot = await deps.cluster.snapshot();
      }
      let pending = provisionablePods(snapshot);
      // CapacityBuffers' virtual pods are planned every round; with nothing pending they are planned once here.
      const buffered = virtualPods(snapshot.capacityBuffers);
      if (buffered.length || snapshot.capacityBuffers?.length) result.bufferPods = Math.max(1, buffered.length);
      if (pending.length === 0 && (buffered.length === 0 || result.rounds > 0)) {
        // Buffers with nothing to plan (unresolved, empty, another strategy) still say so in their status.
        if (result.rounds === 0 && snapshot.capacityBuffers?.length) await reconcileBufferStatuses(deps, snapshot, NOTHING_PLANNED);
        break;
      }
      // A claim created in this invocation that is gone again (e.g. deleted after insufficient capacity)
      // leaves its pods pending: plan them again now rather than at the next scheduled run.
      const live = new Set(snapshot.nodeClaims.map((c) => c.name));
      const gone = [...watched].filter((name) => !live.has(name));
      if (gone.length) {
        for (const name of gone) watched.delete(name);
        handled.clear();
      }
      if (pending.some((p) => !handled.has(p.uid)) || (pending.length === 0 && buffered.length > 0)) {
        if (!options.batched && pending.length > 0) ({ snapshot, pending } = await batch(deps, snapshot, pending, idleMs, maxBatchMs));
        const { created, deferredPods } = await round(deps, planner, snapshot, pending, result, limits);
        for (const name of created) watched.add(name);
        for (const p of pending) if (!deferredPods.has(p.uid)) handled.add(p.uid);
        result.rounds++;
        if (options.once || deps.clock.now() >= limits.deadlineMs) break;
      }
      if (deps.clock.now() - start + pollMs >= budgetMs) break;
      await deps.clock.sleep(pollMs);
    }
  } finally {
    await deps.store.releaseLease(PROVISIONER_LEASE, options.holder).catch((e: unknown) => {
      deps.log.warn('could not release the provisioner lease; it expires by itself', { error: e instanceof Error ? e.message : String(e) });
    });
  }
  return result;
}

/** FailedScheduling events written per provisioner round at most. */
const MAX_FAILED_EVENTS = 100;
/** Time a round's events get even past its deadline (FailedScheduling first). */
const MIN_EVENTS_MS = 1_000;

interface RoundLimits {
  deadlineMs: EpochMs;
  concurrency: number;
}

async function round(
  deps: LifecycleDeps,
  planner: Planner,
  snapshot: ClusterSnapshot,
  pending: Pod[],
  result: ProvisionerResult,
  limits: RoundLimits,
): Promise<{ created: string[]; deferredPods: Set<string> }> {
  deps.log.info('found provisionable pod(s)', { Pods: podNames(pending).join(', '), count: pending.length });
  // nodewright.io/schedules: the limits of the windows open now.
  snapshot = withScheduledPools(snapshot, deps.clock.now());
  for (const bad of snapshot.invalid ?? []) {
    deps.log.warn('ignoring invalid object', { kind: bad.kind, name: bad.name, reason: bad.reason });
  }
  const types = await instanceTypesByPool(deps, snapshot);
  const controller = { controller: 'provisioner' };
  deps.metrics.gauge('karpenter_scheduler_queue_depth', controller, pending.length);
  const solved = await deps.metrics.time('karpenter_scheduler_scheduling_duration_seconds', controller, async () =>
    // Stopped standby nodes are offered as the capacity they become when started.
    planner.solve(withBufferPods(planner.schedulingInputFromSnapshot(withStandbyCapacity(snapshot), types), snapshot)),
  );
  await reconcileBufferStatuses(deps, snapshot, solved);
  // Claims are created for virtual pods too (that is the buffer); nothing else below names them.
  const plan = { ...realPods(solved), nodeClaims: solved.nodeClaims };
  deps.metrics.gauge('karpenter_scheduler_unschedulable_pods_count', controller, plan.unschedulable.length);
  const now = deps.clock.now();
  if (plan.nodeClaims.length > 0) {
    deps.log.info('computed new nodeclaim(s) to fit pod(s)', {
      nodeclaims: plan.nodeClaims.length,
      pods: plan.nodeClaims.reduce((n, c) => n + c.pods.length, 0),
    });
  }
  const names = await createClaims(deps, planner, snapshot, plan, now, limits);
  await wakeStandby(deps, snapshot, solved);
  const created = names.filter((n): n is string => n !== undefined);
  result.nodeClaims.push(...created);
  const deferredPods = new Set(plan.nodeClaims.flatMap((c, i) => (names[i] === undefined ? c.pods.map((p) => p.uid) : [])));
  const deferred = names.length - created.length;
  result.deferred += deferred;
  if (deferred > 0) deps.log.warn('round left nodeclaim(s) to the next round', { deferred, created: created.length, pods: deferredPods.size });
  for (const u of plan.unschedulable.slice(0, 10)) {
    deps.log.warn('could not schedule pod', { pod: `${u.pod.namespace}/${u.pod.name}`, reason: u.reason });
  }
  // Events on the pods, after every launch has started (kubectl describe pod): where each should schedule, and
  // why one cannot (the first MAX_FAILED_EVENTS per round, first; each is one API request). Best effort, as Karpenter's
  // rate-limited recorder: those not written by the round's deadline (a burst's thousands) are left out.
  const nodes = new Set(snapshot.nodes.map((n) => n.name));
  const eventsWithin = { ms: Math.max(MIN_EVENTS_MS, limits.deadlineMs - deps.clock.now()) };
  await recordEvents(
    deps,
    [
      ...plan.unschedulable.slice(0, MAX_FAILED_EVENTS).map((u) => failedScheduling(u.pod, u.reason)),
      ...plan.nodeClaims.flatMap((c, i) =>
        names[i] === undefined ? [] : c.pods.filter((p) => !isVirtualPod(p)).map((p) => nominated(p, `nodeclaim/${names[i]}`)),
      ),
      ...plan.existingPlacements.flatMap((e) => e.pods.map((p) => nominated(p, `${nodes.has(e.node) ? 'node' : 'nodeclaim'}/${e.node}`))),
    ],
    eventsWithin,
  );
  result.unschedulable += plan.unschedulable.length;
  if (created.length > 0) {
    await deps.store.audit({
      at: now,
      kind: 'provisioning',
      action: 'launched',
      nodeClaims: created,
      detail: { pods: pending.length, unschedulable: plan.unschedulable.length, ...(deferred > 0 ? { deferred } : {}) },
    });
  }
  return { created, deferredPods };
}

/**
 * Creates the plan's claims and starts their launches, `concurrency` at a time (Karpenter creates a round's claims in
 * parallel). None past the first wave is started past the deadline, and one whose create or start fails is left out: both are planned
 * again by the next round. The claim's name, by plan index; undefined for one not created.
 */
async function createClaims(
  deps: LifecycleDeps,
  planner: Planner,
  snapshot: ClusterSnapshot,
  plan: Plan,
  now: EpochMs,
  limits: RoundLimits,
): Promise<(string | undefined)[]> {
  const names: (string | undefined)[] = new Array(plan.nodeClaims.length).fill(undefined);
  await eachLimited(plan.nodeClaims, limits.concurrency, async (planned, index) => {
    // The first wave starts even past the deadline (a round whose reads took that long still makes progress).
    if (index >= limits.concurrency && deps.clock.now() >= limits.deadlineMs) return;
    const name = nodeClaimName(
      planned.nodePool,
      planned.pods.map((p) => p.uid),
      now,
      index,
    );
    const pool = snapshot.nodePools.find((p) => p.name === planned.nodePool);
    let claim: NodeClaim;
    try {
      claim = await deps.cluster.createNodeClaim(planner.plannedClaimToNodeClaim(planned, name, now, pool));
    } catch (e) {
      deps.log.warn('could not create nodeclaim; the next round plans its pods again', { nodeclaim: name, error: errorText(e) });
      return;
    }
    names[index] = claim.name;
    deps.log.info('created nodeclaim', {
      nodeclaim: claim.name,
      nodepool: planned.nodePool,
      requests: planned.requests,
      'instance-types': prettySlice(planned.instanceTypes.map((t) => t.name)),
    });
    try {
      await deps.workflows.start('launch', claim.name, { nodeClaimName: claim.name });
    } catch (e) {
      // The claim exists: the controller starts the launch of a claim nobody launched within seconds.
      deps.log.warn('could not start the launch of a nodeclaim; the controller starts it', { nodeclaim: claim.name, error: errorText(e) });
    }
    deps.metrics.count('karpenter_nodeclaims_created_total', {
      reason: 'provisioned',
      nodepool: planned.nodePool,
      min_values_relaxed: String(planned.minValuesRelaxed === true),
    });
  });
  return names;
}
