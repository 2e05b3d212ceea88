/**
 * One invocation of the disruption function (docs/karpenter-reference.md §4.1): Karpenter's 10 s loop inside a Lambda.
 * Each pass: snapshot → instance types per pool (ICE cache applied) → cloud drift → computeDisruption →
 * for consolidation commands wait 15 s and re-validate on a fresh snapshot → start the executions → audit.
 * A StateStore lease keeps it single; the loop stops after an acting pass or ~50 s into the invocation.
 */
import { QuietAudit } from './quiet-audit';
import {
  applyPodEventUpdates,
  blockedEvents,
  budgetBlockedEvents,
  computeDisruption,
  disruptingEvents,
  podEventUpdates,
  unconsolidatableEvents,
  PodsFingerprintAnnotation,
  validateCommand,
  type Command,
  type DisruptionInput,
  type DisruptionOptions,
} from '../disruption';
import { eachLimited } from '../concurrency';
import type { LpLoader } from '../scheduling/optimize/plan-cheapest';
import { SMALL_GROUP } from '../scheduling/optimize/repack';
import type { LifecycleDeps } from './deps';
import { recordEvents } from './events';
import { reconcileNodePoolStatuses } from './nodepool-status';
import { poolInstanceTypes } from './provisionable';
import { withBoundBufferPods } from '../buffers/placement';
import { withScheduledPools } from '../provisioning/pool-schedules';
import { reconcileNodeOverlayStatuses } from './nodeoverlay-status';
import { recordClusterState, recordDisruptionCommand } from '../metrics/record';
import { writeFleetSample } from './fleet-sample';
import { legacyAnnotationWarnings } from '../model/legacy-annotations';
import type { AuditRecord, ClusterSnapshot } from '../ports';
import { startCommand, startPassCommand, type StartedExecution } from './disruption-act';
import { actOnRepairs } from './repair-act';
import { recordDisruptionRate } from './disruption-rate';
import { cloudDrift, type DriftCache } from './disruption-drift';
import { steerScaleDown } from './deletion-cost';
import type { EpochMs } from '../time';

const DISRUPTION_LEASE = 'disruption';

const DisruptionTimings = {
  /** Stop starting passes after this long (the Lambda timeout is 90 s: a last pass may search and validate). */
  budgetMs: 50_000,
  /**
   * Kept free before the function's timeout beyond a last pass's worst case (validation wait + both searches):
   * a pass's Kubernetes and AWS calls, which may each take up to their request timeouts when a service is slow.
   */
  safetyMarginMs: 15_000,
  /** Karpenter polls every 10 s. */
  pollMs: 10_000,
  /** Consolidation commands are re-validated after 15 s (docs/karpenter-reference.md §4.4). */
  validationWaitMs: 15_000,
  /** Search time limits inside one Lambda (Karpenter allows 1 min multi-node, 3 min single-node). */
  multiNodeTimeoutMs: 10_000,
  singleNodeTimeoutMs: 10_000,
} as const;

export interface DisruptionRunOptions {
  /** Lease holder identity (the Lambda request id). */
  holder: string;
  /** Time that names executions and replacement claims: the scheduled event's time, the same on a retry. */
  namingTimeMs?: EpochMs;
  /** One pass only (manual run). */
  once?: boolean;
  budgetMs?: number;
  /** Time left before the function's timeout (context.getRemainingTimeInMillis); caps the budget. */
  remainingMs?: number;
  pollMs?: number;
  validationWaitMs?: number;
  /** Passed to the core (spot-to-spot gate, search limits, multi-replacement). */
  core?: Omit<DisruptionOptions, 'clock'>;
  /** Audit records written at once (DynamoDB writes run in parallel). */
  auditConcurrency?: number;
  /** The container's LP solver, loaded on the first pass with enough pods to re-pack (consolidation's N → M). */
  loadLp?: LpLoader;
  /** Karpenter's PodDeletionCostManagement gate: write pod-deletion-cost to steer scale-downs (core/disruption/deletion-cost.ts). */
  podDeletionCostManagement?: boolean;
  /** A shadow deployment: each fleet sample also says what nodewright's own fleet for the same pods would cost. */
  shadow?: boolean;
}

export interface DisruptionRunResult {
  skipped: boolean;
  passes: number;
  executions: StartedExecution[];
  /** Commands dropped before anything was done (validation failed, candidates taken), with the reason. */
  abandoned: { method: Command['method']; nodeClaims: string[]; why: string }[];
  auditRecords: number;
}

interface PassState {
  deps: LifecycleDeps;
  options: DisruptionRunOptions;
  drift: DriftCache;
  result: DisruptionRunResult;
  /** Deprecated-annotation warnings already logged by this invocation (one line per distinct old key). */
  warned: Set<string>;
  /** When the invocation must be done (its timeout, or the controller's call deadline, less the safety margin). */
  deadline: number;
  /** A pass whose reads end after this decides nothing (READ_SHARE): the next call, reading a warm copy, decides. */
  decideBy: number;
}

/**
 * The share of the invocation's time a pass's reads may take and still decide. The first read of a new container
 * lists the whole cluster (at 5,000 nodes about a minute); deciding after it would run the invocation to its
 * timeout, while the next call catches the copy up in a second.
 */
const READ_SHARE = 0.5;

/**
 * Where the last timed-out single-node search stopped, per sandbox (its dependencies): the next pass resumes there, in
 * this invocation or the next one the warm sandbox serves — Karpenter's controller keeps the like in memory. A new
 * sandbox starts from the cheapest candidate.
 */
const singleNodeResume = new WeakMap<LifecycleDeps, string>();

const isConsolidation = (cmd: Command) => cmd.reason === 'empty' || cmd.reason === 'underutilized';
const claimsOf = (cmd: Command) => cmd.candidates.map((c) => c.nodeClaim.name);

/**
 * Pod-event writes of one pass: a few at a time (each update is one or two API requests), and none started after a
 * few seconds. A fleet adopted or seeded without fingerprints needs one patch per NodeClaim on its first pass (2,000
 * at once held a pass for a minute): what a pass does not write, a later pass writes.
 */
const POD_EVENT_WRITES = { concurrency: 8, ms: 5_000 } as const;

/**
 * Records pod arrivals/departures on the NodeClaims (lastPodEventTime), which `consolidateAfter` counts from. Pod events
 * are written before first sightings; every update is applied to this pass's snapshot, written or not, so a node whose
 * pods just changed is not consolidated by this pass, and an unwritten event is found again, later, by the next.
 */
async function recordPodEvents(s: PassState, snapshot: ClusterSnapshot): Promise<void> {
  const updates = podEventUpdates(snapshot, s.deps.clock.now());
  const ordered = [...updates.filter((u) => u.lastPodEventTime !== undefined), ...updates.filter((u) => u.lastPodEventTime === undefined)];
  const until = s.deps.clock.now() + POD_EVENT_WRITES.ms;
  await eachLimited(ordered, POD_EVENT_WRITES.concurrency, async (u) => {
    if (s.deps.clock.now() >= until) return;
    try {
      await s.deps.cluster.patchNodeClaimMetadata(u.nodeClaim, { annotations: { [PodsFingerprintAnnotation]: u.fingerprint } });
      if (u.lastPodEventTime !== undefined) await s.deps.cluster.patchNodeClaimStatus(u.nodeClaim, { lastPodEventTime: u.lastPodEventTime });
    } catch (e) {
      s.deps.log.warn('could not record pod event', { nodeclaim: u.nodeClaim, error: e instanceof Error ? e.message : String(e) });
    }
  });
  applyPodEventUpdates(snapshot, updates);
}

async function disruptionInput(s: PassState, read: ClusterSnapshot): Promise<DisruptionInput> {
  // nodewright.io/schedules: the consolidation settings of the windows open now.
  const snapshot = withScheduledPools(read, s.deps.clock.now());
  for (const w of legacyAnnotationWarnings(snapshot)) {
    if (!s.warned.has(w)) {
      s.warned.add(w);
      s.deps.log.warn(w);
    }
  }
  await recordPodEvents(s, snapshot);
  const { types: instanceTypes, overlays } = await poolInstanceTypes(s.deps, snapshot);
  await reconcileNodeOverlayStatuses(s.deps, snapshot, overlays);
  const drifted = await cloudDrift(s.deps, snapshot, s.drift);
  // The searches share what is left before a consolidation command's validation (wait, re-read) must start: on a
  // large cluster the reads before them may have used much of the invocation.
  const searchMs = Math.max(0, (s.deadline - s.deps.clock.now() - validationMs(s)) / 2);
  // Below a group's size for the LP in the whole cluster, no re-packed group can need it: the solver is not loaded.
  const lp = s.options.loadLp && snapshot.pods.length >= SMALL_GROUP ? await s.options.loadLp() : undefined;
  return {
    // CapacityBuffers' chunks bound where they stand: a node holding one is not empty, nor freely consolidated.
    snapshot: withBoundBufferPods(snapshot, instanceTypes),
    instanceTypes,
    drifted,
    ...(lp ? { lp } : {}),
    now: s.deps.clock.now(),
    options: {
      multiNodeTimeoutMs: Math.min(DisruptionTimings.multiNodeTimeoutMs, searchMs),
      singleNodeTimeoutMs: Math.min(DisruptionTimings.singleNodeTimeoutMs, searchMs),
      ...(singleNodeResume.has(s.deps) ? { singleNodeResumeAt: singleNodeResume.get(s.deps) } : {}),
      ...s.options.core,
      clock: s.deps.clock,
    },
  };
}

/** What a consolidation command's validation takes at most: the wait, then a re-read and a re-check (a search's worth). */
const validationMs = (s: PassState): number => (s.options.validationWaitMs ?? DisruptionTimings.validationWaitMs) + DisruptionTimings.multiNodeTimeoutMs;

/** Waits, re-reads the cluster and re-checks the command; an abandoned command leaves a log line and an audit record. */
async function stillValid(s: PassState, cmd: Command, audit: AuditRecord[]): Promise<boolean> {
  // No time left to validate before the deadline: the command is dropped (the next pass finds it again).
  const late = s.deps.clock.now() + validationMs(s) > s.deadline;
  let why: string;
  if (late) why = 'no time left in this invocation to validate it; the next pass computes it again';
  else {
    await s.deps.clock.sleep(s.options.validationWaitMs ?? DisruptionTimings.validationWaitMs);
    const fresh = await disruptionInput(s, await s.deps.cluster.snapshot());
    const v = validateCommand(cmd, fresh);
    if (v.valid) return true;
    why = `validation after ${(s.options.validationWaitMs ?? DisruptionTimings.validationWaitMs) / 1000}s: ${v.reason}`;
  }
  s.deps.log.info('abandoning disruption command', {
    reason: cmd.reason,
    method: cmd.method,
    nodeclaim: claimsOf(cmd).join(', '),
    nodepool: [...new Set(cmd.candidates.map((c) => c.nodePool.name))].join(', '),
    why,
  });
  s.result.abandoned.push({ method: cmd.method, nodeClaims: claimsOf(cmd), why });
  audit.push({
    at: s.deps.clock.now(),
    kind: 'disruption',
    action: 'abandoned',
    reason: cmd.reason,
    nodeClaims: claimsOf(cmd),
    nodes: cmd.candidates.map((c) => c.node.name),
    savingsPerHour: cmd.savingsPerHour,
    detail: { method: cmd.method, why },
  });
  return false;
}

const UNCONSOLIDATABLE_EVENTS_LEASE = 'disruption-unconsolidatable-events';
/** What a pass spends at most writing the events of nodes it left alone. */
const BLOCKED_EVENTS_MS = 2_000;

/**
 * Unconsolidatable events at most every 15 minutes across invocations, as Karpenter's recorder emits them from its
 * one long-lived pod. An event recorder's dedupe lives in one Lambda container, and a new container would write one
 * event per node per pass (three API requests each once the Event exists): a lease with no release is the clock.
 */
async function unconsolidatableDue(s: PassState, audit: Parameters<typeof unconsolidatableEvents>[0]): Promise<ReturnType<typeof unconsolidatableEvents>> {
  const events = unconsolidatableEvents(audit);
  if (events.length === 0) return [];
  const due = await s.deps.store.acquireLease(UNCONSOLIDATABLE_EVENTS_LEASE, s.options.holder, UNCONSOLIDATABLE_EVENTS_SECONDS).catch(() => false);
  return due ? events : [];
}

const UNCONSOLIDATABLE_EVENTS_SECONDS = 900;

/** One pass: its audit records, whether it chose anything (then they are written at once), and whether to stop. */
async function pass(s: PassState, namingTimeMs: EpochMs): Promise<{ audit: AuditRecord[]; eventful: boolean; acted: boolean; late?: boolean }> {
  const readFrom = s.deps.clock.now();
  const input = await disruptionInput(s, await s.deps.cluster.snapshot());
  if (s.deps.clock.now() > s.decideBy) {
    s.deps.log.info('reading the cluster took this call too long to decide; the next call decides from the copy it keeps', {
      readSeconds: Math.round((s.deps.clock.now() - readFrom) / 1000),
    });
    return { audit: [], eventful: false, acted: false, late: true };
  }
  // What the pass sees, as Karpenter's metrics controllers publish it (usage, limits, allocatable, cost), and
  // NodePool statuses (NODES, resources, READY) from the same read: a pass follows every node change within seconds.
  recordClusterState(s.deps.metrics, input.snapshot, input.instanceTypes);
  if (await writeFleetSample(s.deps, input, s.options.shadow === true)) s.result.auditRecords++;
  await reconcileNodePoolStatuses(s.deps, input.snapshot);
  await steerScaleDown(s.deps, input, s.options.holder, s.options.podDeletionCostManagement === true);
  const decision = await s.deps.metrics.time(
    'karpenter_voluntary_disruption_decision_evaluation_duration_seconds',
    { reason: 'all', consolidation_type: '' },
    async () => computeDisruption(input),
  );
  if (decision.singleNodeResumeAt) singleNodeResume.set(s.deps, decision.singleNodeResumeAt);
  else if (decision.singleNodeResumeAt === null) singleNodeResume.delete(s.deps);
  for (const [reason, n] of Object.entries(decision.eligible)) s.deps.metrics.gauge('karpenter_voluntary_disruption_eligible_nodes', { reason }, n);
  const audit: AuditRecord[] = [...decision.audit];
  let acted = false;
  // kubectl describe node / nodeclaim: what keeps a node from being disrupted (a PDB, do-not-disrupt), and why
  // consolidation cannot do better for it.
  // At most 2 s of a pass (at 2,000 nodes a storm blocked every node at once: 3,000 events took 9 s); the rest next pass.
  await recordEvents(
    s.deps,
    [
      ...budgetBlockedEvents(decision.blockedBudgets, input.snapshot.nodePools),
      ...(await unconsolidatableDue(s, decision.audit)),
      ...blockedEvents(decision.audit),
    ],
    { ms: BLOCKED_EVENTS_MS },
  );
  const context = { nodePools: input.snapshot.nodePools, nodeClasses: input.snapshot.nodeClasses };
  // Expiration is forceful: started at once, no validation wait, no budget.
  for (const cmd of decision.expirations) {
    const out = await startCommand(s.deps, cmd, namingTimeMs, context);
    if (out.started.length > 0) {
      await recordEvents(s.deps, disruptingEvents(cmd));
      recordDisruptionCommand(s.deps.metrics, cmd);
    }
    s.result.executions.push(...out.started);
    audit.push(...out.audit);
    acted ||= out.started.length > 0;
  }
  // Node repair: reboots and budgeted replacements of unhealthy nodes, no validation wait (they are not consolidation).
  const repaired = await actOnRepairs(s.deps, decision, namingTimeMs, context);
  s.result.executions.push(...repaired.started);
  audit.push(...repaired.audit);
  acted ||= repaired.started.length + repaired.rebooted.length > 0;
  const repairedClaims = new Set([...repaired.rebooted, ...repaired.started.flatMap((x) => x.nodeClaims)]);
  const started = decision.repairs.filter((r) => r.candidates.some((c) => repairedClaims.has(c.nodeClaim.name)));
  const cmd = decision.command;
  // The rate ledger records what started even when the command below fails.
  try {
    if (cmd && (!isConsolidation(cmd) || (await stillValid(s, cmd, audit))))
      acted = (await startPassCommand(s.deps, cmd, namingTimeMs, context, { ...s.result, audit, started })) || acted;
  } finally {
    await recordDisruptionRate(s.deps, started, s.deps.clock.now());
  }
  return { audit, eventful: cmd !== undefined || decision.expirations.length > 0 || decision.repairs.length > 0, acted };
}

async function writeAudit(s: PassState, records: AuditRecord[]): Promise<void> {
  const width = Math.max(1, s.options.auditConcurrency ?? 16);
  for (let i = 0; i < records.length; i += width) {
    await Promise.all(records.slice(i, i + width).map((r) => s.deps.store.audit(r)));
  }
  s.result.auditRecords += records.length;
}

const QUIET_AUDIT_LEASE = 'disruption-quiet-audit';
/** Per container (its deps): the quiet records it wrote. */
const quietAudits = new WeakMap<LifecycleDeps, QuietAudit>();
const QUIET_AUDIT_SECONDS = 600;

/**
 * The disruption loop of one invocation. The audit of every pass that chose something is written; of the
 * passes that chose nothing only the last one is (the why of every node), and at most every 10 minutes.
 */
export async function runDisruption(deps: LifecycleDeps, options: DisruptionRunOptions): Promise<DisruptionRunResult> {
  const lastPassMs =
    (options.validationWaitMs ?? DisruptionTimings.validationWaitMs) + DisruptionTimings.multiNodeTimeoutMs + DisruptionTimings.singleNodeTimeoutMs;
  // Never start a pass that could run into the function's timeout: the budget ends a last pass's worst case
  // plus a safety margin before it.
  const budgetMs = Math.min(
    options.budgetMs ?? DisruptionTimings.budgetMs,
    options.remainingMs !== undefined ? Math.max(0, options.remainingMs - lastPassMs - DisruptionTimings.safetyMarginMs) : Infinity,
  );
  const pollMs = options.pollMs ?? DisruptionTimings.pollMs;
  const start = deps.clock.now();
  const result: DisruptionRunResult = { skipped: false, passes: 0, executions: [], abandoned: [], auditRecords: 0 };
  // A call that must end sooner than a pass's worst case (the controller's, just before its hand-over) leaves the pass
  // to the next call.
  if (options.remainingMs !== undefined && options.remainingMs < lastPassMs + DisruptionTimings.safetyMarginMs) {
    deps.log.info('not enough time left for a disruption pass; the next call makes it', { remainingMs: options.remainingMs });
    return result;
  }
  // Outlives the longest invocation (the last pass may search both methods and wait for validation).
  const worstMs = budgetMs + lastPassMs;
  const leaseSeconds = Math.ceil(worstMs / 1000) + 15;
  if (!(await deps.store.acquireLease(DISRUPTION_LEASE, options.holder, leaseSeconds))) {
    deps.log.info('disruption already running elsewhere; skipping', { holder: options.holder });
    return { ...result, skipped: true };
  }
  const deadline = options.remainingMs !== undefined ? start + options.remainingMs - DisruptionTimings.safetyMarginMs : Infinity;
  const decideBy = options.remainingMs !== undefined ? start + options.remainingMs * READ_SHARE : Infinity;
  const s: PassState = { deps, options, drift: new Map(), result, warned: new Set(), deadline, decideBy };
  let quiet: AuditRecord[] | undefined;
  // The longest pass so far: at scale a pass's reads and writes take time of their own, which the next one may need
  // again on top of its searches and validation wait.
  let longestMs = 0;
  try {
    for (;;) {
      const passStart = deps.clock.now();
      const p = await pass(s, options.namingTimeMs ?? deps.clock.now());
      longestMs = Math.max(longestMs, deps.clock.now() - passStart);
      result.passes++;
      if (p.eventful) {
        await writeAudit(s, p.audit);
        quiet = undefined;
      } else if (!p.late) {
        quiet = p.audit;
      }
      if (p.acted || p.late || options.once) break;
      if (deps.clock.now() - start + pollMs >= budgetMs) break;
      if (
        options.remainingMs !== undefined &&
        deps.clock.now() - start + pollMs + longestMs + lastPassMs + DisruptionTimings.safetyMarginMs >= options.remainingMs
      )
        break;
      await deps.clock.sleep(pollMs);
    }
    // The why of every node when nothing was chosen: at most once per QUIET_AUDIT_SECONDS across invocations
    // (the controller starts a pass after every relevant change; 100 nodes × every pass would be most of the
    // table's writes). A lease with no release is the rate limit.
    // Only what changed since this container last wrote it, or is an hour old (quiet-audit.ts).
    if (quiet && (await deps.store.acquireLease(QUIET_AUDIT_LEASE, options.holder, QUIET_AUDIT_SECONDS))) {
      const memory = quietAudits.get(deps) ?? new QuietAudit();
      quietAudits.set(deps, memory);
      const due = memory.due(quiet, deps.clock.now());
      await writeAudit(
        s,
        due.map((d) => d.record),
      );
      memory.wrote(due, deps.clock.now());
    }
  } finally {
    await deps.store.releaseLease(DISRUPTION_LEASE, options.holder);
  }
  return result;
}
