/**
 * What to do with one parsed interruption message (docs/karpenter-reference.md §5 table). Pure: ownership comes in as a
 * lookup, and nothing here performs I/O.
 */
import type { OfferingKey } from '../ports/state-store';
import type { InterruptionMessage } from './events';
import type { OwnedInstance } from './ownership';
import { LifecycleTimings } from '../lifecycle/deps';
import { interruptionExecutionName } from './execution-name';

/** Karpenter keeps unavailable offerings for 3 minutes (docs/karpenter-reference.md §3.4). */
const UNAVAILABLE_OFFERING_TTL_SECONDS = LifecycleTimings.unavailableOfferingTtlSeconds;

/** Input of the `terminate` state machine (shared/core/lifecycle/manual-input.ts `terminateByClaim`). */
interface InterruptionTerminateInput {
  nodeClaimName: string;
  reason: string;
}

interface MarkUnavailable {
  offering: OfferingKey;
  ttlSeconds: number;
  reason: string;
}

export type InterruptionAction =
  /** Not ours, unknown, or filtered: log a line and delete the message. */
  | { type: 'drop'; reason: string; instanceId?: string }
  /** Observed only (rebalance recommendation, as Karpenter): an audit record, no change. */
  | { type: 'record'; instanceId: string; nodeClaim?: string; reason: string }
  /** Start a `terminate` execution (CordonAndDrain), optionally mark the offering unavailable, and ask for replacements. */
  | {
      type: 'cordonAndDrain';
      instanceId: string;
      nodeClaim: string;
      executionName: string;
      input: InterruptionTerminateInput;
      markUnavailable?: MarkUnavailable;
      triggerProvisioning: true;
    };

function offeringMark(owned: OwnedInstance, capacityType: OfferingKey['capacityType'], reason: string): MarkUnavailable | undefined {
  if (!owned.instanceType || !owned.zone) return undefined;
  return { offering: { instanceType: owned.instanceType, zone: owned.zone, capacityType }, ttlSeconds: UNAVAILABLE_OFFERING_TTL_SECONDS, reason };
}

/**
 * One action per affected instance (a Health event may name several). Instances the lookup does not
 * know are dropped and never touched. An owned instance with no NodeClaim has nothing to drain: it is
 * dropped here and garbage collection terminates it (the terminate workflow only accepts managed targets).
 */
export function decideInterruption(message: InterruptionMessage, lookup: (instanceId: string) => OwnedInstance | undefined): InterruptionAction[] {
  if (message.kind === 'NoOp') {
    return [{ type: 'drop', reason: message.reason, ...(message.instanceIds[0] ? { instanceId: message.instanceIds[0] } : {}) }];
  }
  return message.instanceIds.map((instanceId): InterruptionAction => {
    const owned = lookup(instanceId);
    if (!owned) return { type: 'drop', instanceId, reason: 'instance is not owned by this cluster' };
    const claim = owned.nodeClaim ? { nodeClaim: owned.nodeClaim } : {};
    if (message.kind === 'RebalanceRecommendation') {
      return { type: 'record', instanceId, ...claim, reason: message.kind };
    }
    if (!owned.nodeClaim) {
      return { type: 'drop', instanceId, reason: 'instance has no NodeClaim; garbage collection reclaims it' };
    }
    // nodewright's own disruption terminates the instance before it deletes the claim, so EC2's shutting-down
    // notice for it arrives while the claim still exists: the workflow that tainted the node finishes it.
    if (message.kind === 'InstanceStateChange' && owned.disrupting) {
      return { type: 'drop', instanceId, reason: `instance is ${message.state} while its node is already being disrupted; that workflow finishes it` };
    }
    let markUnavailable: MarkUnavailable | undefined;
    if (message.kind === 'SpotInterruption') markUnavailable = offeringMark(owned, 'spot', message.kind);
    if (message.kind === 'CapacityReservationInterruption') markUnavailable = offeringMark(owned, 'reserved', message.kind);
    const reason = message.kind === 'InstanceStateChange' ? `${message.kind}:${message.state}` : message.kind;
    return {
      type: 'cordonAndDrain',
      instanceId,
      nodeClaim: owned.nodeClaim,
      executionName: interruptionExecutionName(instanceId, message.eventId),
      input: { nodeClaimName: owned.nodeClaim, reason },
      ...(markUnavailable ? { markUnavailable } : {}),
      triggerProvisioning: true,
    };
  });
}
