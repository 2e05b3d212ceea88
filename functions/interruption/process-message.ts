/**
 * Handles one interruption-queue message: parse, decide (shared/core/interruption), act.
 * Throwing fails only this record (partial batch failure); everything else deletes the message.
 */
import type { SQSRecord } from 'aws-lambda';
import type { Clock, ClusterClient, StateStore, WorkflowStarter } from '../../shared/core/ports';
import { decideInterruption, parseInterruptionMessage, type InterruptionAction, type InterruptionMessage } from '../../shared/core/interruption';
import type { LifecycleLogger } from '../../shared/core/lifecycle';
import type { OwnershipLookup } from './ownership-lookup';

/** Structured logger (the Powertools Logger through `lifecycleLogger`). */
export type InterruptionLogger = LifecycleLogger;

/** Asks the provisioner to run now so replacements for the drained pods start at once. */
export type ProvisioningTrigger = (request: { reason: string; nodeClaim?: string; instanceId: string }) => Promise<void>;

export interface ProcessMessageDeps {
  cluster: Pick<ClusterClient, 'getNodeClaim'>;
  workflows: WorkflowStarter;
  state: StateStore;
  clock: Pick<Clock, 'now'>;
  logger: InterruptionLogger;
  triggerProvisioning?: ProvisioningTrigger;
}

type CordonAndDrain = Extract<InterruptionAction, { type: 'cordonAndDrain' }>;

/** Runs a follow-up whose failure must not fail the record: the terminate execution already exists. */
async function bestEffort(deps: ProcessMessageDeps, what: string, fields: Record<string, unknown>, work: () => Promise<void>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    deps.logger.error(`interruption follow-up failed: ${what}`, { ...fields, error });
    return false;
  }
}

/** Longer than the queue's 300 s retention: every duplicate delivery of an event arrives within it. */
const FOLLOW_UP_LEASE_SECONDS = 600;

/**
 * Step Functions' StartExecution is idempotent: a duplicate with the same name and input while the
 * execution runs gets the original response, not ExecutionAlreadyExists, so `alreadyStarted` alone cannot
 * tell a duplicate. A lease named after the execution does: the first delivery holds it, the others are
 * refused. The holder is the SQS message id, so a redelivery of the same message (its first attempt
 * crashed) may redo the follow-ups. A store error does not block them: a repeated mark is harmless.
 */
async function claimFollowUps(deps: ProcessMessageDeps, executionName: string, messageId: string, fields: Record<string, unknown>): Promise<boolean> {
  try {
    return await deps.state.acquireLease(`interruption/${executionName}`, messageId, FOLLOW_UP_LEASE_SECONDS);
  } catch (error) {
    deps.logger.error('interruption follow-up failed: claim follow-ups', { ...fields, error });
    return true;
  }
}

async function cordonAndDrain(deps: ProcessMessageDeps, message: InterruptionMessage, action: CordonAndDrain, messageId: string): Promise<void> {
  const fields = { messageKind: message.kind, eventId: message.eventId, messageId, instanceId: action.instanceId, nodeclaim: action.nodeClaim };
  // A later event about the same instance (e.g. `terminated` after the spot warning) finds the claim
  // already finalized by the first drain: nothing is left to do, and a new execution would only fail.
  if (!(await deps.cluster.getNodeClaim(action.nodeClaim))) {
    deps.logger.info('dropping interruption message', { ...fields, reason: 'nodeclaim no longer exists' });
    return;
  }
  const { executionArn, alreadyStarted } = await deps.workflows.start('terminate', action.executionName, action.input);
  if (alreadyStarted || !(await claimFollowUps(deps, action.executionName, messageId, fields))) {
    deps.logger.info('interruption message already handled', { ...fields, executionArn });
    return;
  }
  deps.logger.info('initiating delete from interruption message', { ...fields, action: 'CordonAndDrain', executionArn });

  let markedUnavailable = false;
  const mark = action.markUnavailable;
  if (mark) {
    markedUnavailable = await bestEffort(deps, 'mark offering unavailable', fields, () => deps.state.markUnavailable(mark.offering, mark.ttlSeconds, mark.reason));
    if (markedUnavailable) {
      deps.logger.info('marked offering unavailable', { ...fields, 'instance-type': mark.offering.instanceType, zone: mark.offering.zone, 'capacity-type': mark.offering.capacityType, ttlSeconds: mark.ttlSeconds });
    }
  }
  let provisioning: 'triggered' | 'failed' | 'not-configured' = 'not-configured';
  const trigger = deps.triggerProvisioning;
  if (trigger) {
    const request = { reason: message.kind, instanceId: action.instanceId, nodeClaim: action.nodeClaim };
    provisioning = (await bestEffort(deps, 'trigger provisioning', fields, () => trigger(request))) ? 'triggered' : 'failed';
  }
  await bestEffort(deps, 'audit', fields, () =>
    deps.state.audit({
      at: deps.clock.now(),
      kind: 'interruption',
      action: 'cordon-and-drain',
      reason: message.kind,
      nodeClaims: [action.nodeClaim],
      detail: { instanceId: action.instanceId, eventId: message.eventId, executionArn, markedUnavailable, provisioning, ...(mark ? { offering: mark.offering } : {}) },
    }),
  );
}

export async function processInterruptionRecord(deps: ProcessMessageDeps & { ownership: OwnershipLookup }, record: SQSRecord): Promise<void> {
  let message: InterruptionMessage;
  try {
    message = parseInterruptionMessage(record.body);
  } catch (error) {
    // Failing the record (instead of deleting it like Karpenter) sends it to the DLQ after maxReceiveCount, where it can be inspected.
    deps.logger.error('failed parsing interruption message', { messageId: record.messageId, error });
    throw error;
  }
  const lookup = message.kind === 'NoOp' ? () => undefined : await deps.ownership(message.instanceIds);
  for (const action of decideInterruption(message, lookup)) {
    switch (action.type) {
      case 'drop':
        deps.logger.info('dropping interruption message', { messageKind: message.kind, eventId: message.eventId, messageId: record.messageId, instanceId: action.instanceId, reason: action.reason });
        break;
      case 'record':
        deps.logger.info('received rebalance recommendation', { eventId: message.eventId, instanceId: action.instanceId, nodeclaim: action.nodeClaim });
        await deps.state.audit({
          at: deps.clock.now(),
          kind: 'interruption',
          action: 'observed',
          reason: action.reason,
          ...(action.nodeClaim ? { nodeClaims: [action.nodeClaim] } : {}),
          detail: { instanceId: action.instanceId, eventId: message.eventId },
        });
        break;
      case 'cordonAndDrain':
        await cordonAndDrain(deps, message, action, record.messageId);
        break;
    }
  }
}
