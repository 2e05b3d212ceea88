/**
 * Handles one interruption-queue message: parse, decide (shared/core/interruption), act.
 * Throwing fails only this record (partial batch failure); everything else deletes the message.
 */
import { isStandbyClaim } from '../buffers/standby';
import type { Clock, MetricsRecorder, StateStore, WorkflowStarter } from '../ports';
import { decideInterruption, type InterruptionAction } from './decide';
import { interruptionExecutionName } from './execution-name';
import { parseInterruptionMessage, type InterruptionMessage } from './events';
import type { LifecycleLogger } from '../lifecycle/deps';
import { disruptionIdOf, nameReplacements } from '../lifecycle/disruption';
import type { InterruptionReplacementPlan } from './replacements';
import type { NodeClaim } from '../model/karpenter';
import { Annotation, Label } from '../model/labels';
import type { InterruptionReads, OwnershipLookup } from './ownership-lookup';
import type { EpochMs } from '../time';
import { epochMs } from '../time';
import { InterruptionRetry } from './retry';

/**
 * Plans replacement capacity for an interrupted claim's pods (replacement-inputs.ts reads what that takes, then
 * replacements.ts plans). Absent in unit tests that only check the decisions.
 */
export type ReplacementPlanner = (reads: InterruptionReads, claim: NodeClaim, seed: string, eventTimeMs: EpochMs) => Promise<InterruptionReplacementPlan>;

/** Creates a replacement claim and starts its `launch` execution (pre-provisioning on a rebalance recommendation). */
export type ReplacementLauncher = (claim: NodeClaim, id: string) => Promise<void>;

export interface ProcessMessageDeps {
  /** The batch's cluster reads (ownership-lookup.ts `batchReads`): by name, never the whole cluster. */
  cluster: InterruptionReads;
  workflows: WorkflowStarter;
  store: StateStore;
  clock: Pick<Clock, 'now'>;
  log: LifecycleLogger;
  planReplacements?: ReplacementPlanner;
  launchReplacement?: ReplacementLauncher;
  /** Karpenter's interruption metrics (received and deleted messages, time on the queue). */
  metrics?: MetricsRecorder;
}

/** Karpenter's message_type label values. */
const MESSAGE_TYPES: Record<InterruptionMessage['kind'], string> = {
  SpotInterruption: 'spot_interrupted',
  RebalanceRecommendation: 'rebalance_recommendation',
  ScheduledChange: 'scheduled_change',
  InstanceStateChange: 'state_change',
  CapacityReservationInterruption: 'capacity_reservation_interrupted',
  NoOp: 'no_op',
};
const messageType = (kind: InterruptionMessage['kind']): string => MESSAGE_TYPES[kind] ?? 'unknown';

type CordonAndDrain = Extract<InterruptionAction, { type: 'cordonAndDrain' }>;

/** Runs a follow-up whose failure must not fail the record: the terminate execution already exists. */
async function bestEffort(deps: ProcessMessageDeps, what: string, fields: Record<string, unknown>, work: () => Promise<void>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    deps.log.error(`interruption follow-up failed: ${what}`, { ...fields, error });
    return false;
  }
}

const FOLLOW_UP_LEASE_SECONDS = InterruptionRetry.followUpLeaseSeconds;

/**
 * Step Functions' StartExecution is idempotent: a duplicate with the same name and input while the
 * execution runs gets the original response, not ExecutionAlreadyExists, so `alreadyStarted` alone cannot
 * tell a duplicate. A lease named after the execution does: the first delivery holds it, the others are
 * refused. The holder is the SQS message id, so a redelivery of the same message (its first attempt
 * crashed) may redo the follow-ups. A store error does not block them: a repeated mark is harmless.
 */
async function claimFollowUps(deps: ProcessMessageDeps, executionName: string, messageId: string, fields: Record<string, unknown>): Promise<boolean> {
  try {
    return await deps.store.acquireLease(`interruption/${executionName}`, messageId, FOLLOW_UP_LEASE_SECONDS);
  } catch (error) {
    deps.log.error('interruption follow-up failed: claim follow-ups', { ...fields, error });
    return true;
  }
}

/** How long after the event a node with a 2-minute notice starts draining even if its replacement is not Ready. */
const NOTICE_DRAIN_AFTER_MS = 60_000;
/** A scheduled change or a drained rebalance: replacements get the normal 10 minutes, as a disruption. */
const UNHURRIED_DRAIN_AFTER_MS = 10 * 60_000;

/** When the drain must start at the latest, from the message kind. */
function drainBy(message: InterruptionMessage, nowMs: EpochMs): EpochMs {
  const at = Math.min(message.time ?? nowMs, nowMs);
  switch (message.kind) {
    case 'SpotInterruption':
    case 'CapacityReservationInterruption':
      return epochMs(at + NOTICE_DRAIN_AFTER_MS);
    case 'InstanceStateChange':
      return nowMs; // already stopping or gone: drain at once (replacements were still requested first)
    default:
      return epochMs(nowMs + UNHURRIED_DRAIN_AFTER_MS);
  }
}

/** One lease per instance: the warning and the state change that follows it are one interruption, not two. */
const instanceLease = (instanceId: string) => `interruption-instance/${instanceId}`;

async function planFor(
  deps: ProcessMessageDeps,
  claim: NodeClaim,
  message: InterruptionMessage,
  fields: Record<string, unknown>,
): Promise<InterruptionReplacementPlan | undefined> {
  if (!deps.planReplacements) return undefined;
  const plan = await deps.planReplacements(deps.cluster, claim, message.eventId, message.time ?? deps.clock.now());
  for (const u of plan.unschedulable.slice(0, 10)) {
    deps.log.warn('could not schedule pod of interrupted node', { ...fields, pod: u.pod, reason: u.reason });
  }
  return plan;
}

/** Standby capacity is stopped and started by nodewright itself: those state changes are not interruptions. */
const standbyStateChange = (message: InterruptionMessage, claim: NodeClaim): string | undefined =>
  message.kind === 'InstanceStateChange' && isStandbyClaim(claim) && claim.annotations[Annotation.standbyState] !== undefined
    ? 'standby capacity stopped or started by nodewright'
    : undefined;

/**
 * Replace, then drain: replacement claims for the node's pods are planned now and launched by a `disrupt`
 * execution in interruption mode (taint → launch replacements → wait until they are Ready or `drainBy` →
 * terminate, which drains PDB-aware). A failed launch never rolls back an interruption: the drain goes on.
 */
async function cordonAndDrain(deps: ProcessMessageDeps, message: InterruptionMessage, action: CordonAndDrain, messageId: string): Promise<void> {
  const fields = { messageKind: message.kind, eventId: message.eventId, messageId, instanceId: action.instanceId, nodeclaim: action.nodeClaim };
  // A later event about the same instance (e.g. `terminated` after the spot warning) finds the claim
  // already finalized by the first drain: nothing is left to do, and a new execution would only fail.
  const claim = await deps.cluster.getNodeClaim(action.nodeClaim);
  const drop = !claim ? 'nodeclaim no longer exists' : standbyStateChange(message, claim);
  if (!claim || drop) {
    deps.log.info('dropping interruption message', { ...fields, reason: drop });
    return;
  }
  if (!(await claimFollowUps(deps, instanceLease(action.instanceId), messageId, fields))) {
    deps.log.info('interruption message already handled', { ...fields, reason: 'another event about this instance is being handled' });
    return;
  }
  const plan = await planFor(deps, claim, message, fields);
  const input = {
    reason: action.input.reason,
    candidates: [{ nodeClaimName: action.nodeClaim, ...(plan?.nodeName ? { nodeName: plan.nodeName } : {}) }],
    // Named and marked as ValidateDisruptInput will (from the execution name), so the log and audit show the real names.
    replacements: nameReplacements(plan?.replacements ?? [], disruptionIdOf(action.executionName)),
    interruption: { kind: message.kind, drainBy: drainBy(message, deps.clock.now()) },
  };
  let started: { executionArn: string; alreadyStarted: boolean };
  try {
    started = await deps.workflows.start('disrupt', action.executionName, input);
  } catch (error) {
    await deps.store.releaseLease(instanceLease(action.instanceId), messageId).catch(() => undefined);
    throw error;
  }
  const { executionArn, alreadyStarted } = started;
  if (alreadyStarted || !(await claimFollowUps(deps, action.executionName, messageId, fields))) {
    deps.log.info('interruption message already handled', { ...fields, executionArn });
    return;
  }
  deps.metrics?.count('karpenter_nodeclaims_disrupted_total', {
    reason: messageType(message.kind),
    nodepool: claim.nodePool,
    capacity_type: claim.labels[Label.capacityType] ?? '',
  });
  deps.log.info('initiating delete from interruption message', {
    ...fields,
    action: 'CordonAndDrain',
    executionArn,
    replacements: input.replacements.map((r) => r.name).join(', '),
    drainBy: new Date(input.interruption.drainBy).toISOString(),
  });

  let markedUnavailable = false;
  const mark = action.markUnavailable;
  if (mark) {
    markedUnavailable = await bestEffort(deps, 'mark offering unavailable', fields, () =>
      deps.store.markUnavailable(mark.offering, mark.ttlSeconds, mark.reason),
    );
    if (markedUnavailable) {
      deps.log.info('marked offering unavailable', {
        ...fields,
        'instance-type': mark.offering.instanceType,
        zone: mark.offering.zone,
        'capacity-type': mark.offering.capacityType,
        ttlSeconds: mark.ttlSeconds,
      });
    }
  }
  await bestEffort(deps, 'audit', fields, () =>
    deps.store.audit({
      at: deps.clock.now(),
      kind: 'interruption',
      action: 'cordon-and-drain',
      reason: message.kind,
      nodeClaims: [action.nodeClaim],
      detail: {
        instanceId: action.instanceId,
        eventId: message.eventId,
        executionArn,
        markedUnavailable,
        replacements: input.replacements.map((r) => r.name),
        drainBy: input.interruption.drainBy,
        ...(mark ? { offering: mark.offering } : {}),
      },
    }),
  );
}

type Rebalance = Extract<InterruptionAction, { type: 'record' }>;

/** A rebalance recommendation, by the pool's `nodewright.io/rebalance-policy` (unset: recorded only, as Karpenter). */
async function rebalance(deps: ProcessMessageDeps, message: InterruptionMessage, action: Rebalance, messageId: string): Promise<void> {
  const fields = { messageKind: message.kind, eventId: message.eventId, messageId, instanceId: action.instanceId, nodeclaim: action.nodeClaim };
  const claim = action.nodeClaim ? await deps.cluster.getNodeClaim(action.nodeClaim) : undefined;
  const pool = claim ? await deps.cluster.getNodePool(claim.nodePool) : undefined;
  const policy = pool?.rebalancePolicy;
  if (policy === 'ignore') {
    deps.log.info('dropping interruption message', { ...fields, reason: `nodepool ${pool?.name} has rebalance policy ignore` });
    return;
  }
  if (policy === 'drain' && action.nodeClaim) {
    const drain: CordonAndDrain = {
      type: 'cordonAndDrain',
      instanceId: action.instanceId,
      nodeClaim: action.nodeClaim,
      executionName: interruptionExecutionName(action.instanceId, message.eventId),
      input: { nodeClaimName: action.nodeClaim, reason: message.kind },
      triggerProvisioning: true,
    };
    await cordonAndDrain(deps, message, drain, messageId);
    return;
  }
  deps.log.info('received rebalance recommendation', { ...fields, policy: policy ?? 'record' });
  let launched: string[] = [];
  if (policy === 'pre-provision' && claim && deps.launchReplacement && (await claimFollowUps(deps, `rebalance/${action.instanceId}`, messageId, fields))) {
    const plan = await planFor(deps, claim, message, fields);
    // Marked as this pre-provisioning's own (launchReplacement never adopts a claim it did not create); the
    // plan's names come from the event, so a later recommendation plans claims of its own.
    const id = `rebalance-${action.instanceId}`;
    for (const r of plan?.replacements ?? []) await deps.launchReplacement({ ...r, annotations: { ...r.annotations, [Annotation.disruptionId]: id } }, id);
    launched = (plan?.replacements ?? []).map((r) => r.name);
    deps.log.info('pre-provisioned replacement capacity', { ...fields, replacements: launched.join(', ') });
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'interruption',
    action: launched.length ? 'pre-provisioned' : 'observed',
    reason: action.reason,
    ...(action.nodeClaim ? { nodeClaims: [action.nodeClaim] } : {}),
    detail: { instanceId: action.instanceId, eventId: message.eventId, policy: policy ?? 'record', replacements: launched },
  });
}

/** One message off the interruption queue: what an SQS record carries that the use case reads. */
export interface QueueMessage {
  messageId: string;
  body: string;
  /** SentTimestamp (epoch ms, as a string) for the time-on-queue metric. */
  attributes?: { SentTimestamp?: string };
}

export async function processInterruptionRecord(deps: ProcessMessageDeps & { ownership: OwnershipLookup }, record: QueueMessage): Promise<void> {
  let message: InterruptionMessage;
  try {
    message = parseInterruptionMessage(record.body);
  } catch (error) {
    // Failing the record (instead of deleting it like Karpenter) sends it to the DLQ after maxReceiveCount, where it can be inspected.
    deps.log.error('failed parsing interruption message', { messageId: record.messageId, error });
    throw error;
  }
  deps.metrics?.count('karpenter_interruption_received_messages_total', { message_type: messageType(message.kind) });
  const sent = Number(record.attributes?.SentTimestamp);
  if (Number.isFinite(sent) && sent > 0)
    deps.metrics?.observe('karpenter_interruption_message_queue_duration_seconds', {}, Math.max(0, (deps.clock.now() - sent) / 1000));
  // The node is read (its taints) only for a state change: a workflow that already takes it away finishes it.
  const lookup = message.kind === 'NoOp' ? () => undefined : await deps.ownership(message.instanceIds, { withNodes: message.kind === 'InstanceStateChange' });
  for (const action of decideInterruption(message, lookup)) {
    switch (action.type) {
      case 'drop':
        deps.log.info('dropping interruption message', {
          messageKind: message.kind,
          eventId: message.eventId,
          messageId: record.messageId,
          instanceId: action.instanceId,
          reason: action.reason,
        });
        break;
      case 'record':
        await rebalance(deps, message, action, record.messageId);
        break;
      case 'cordonAndDrain':
        await cordonAndDrain(deps, message, action, record.messageId);
        break;
    }
  }
  // Handled: the batch response leaves it out of the failures, so SQS deletes it.
  deps.metrics?.count('karpenter_interruption_deleted_messages_total');
}
