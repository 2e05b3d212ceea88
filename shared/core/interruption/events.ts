/**
 * Parsing of interruption-queue messages (docs/karpenter-reference.md §5): an SQS body is an EventBridge event; it is
 * validated with zod and classified by (version, source, detail-type).
 */
import * as z from '../zod';
import { EventMalformedError } from '../errors';
import { epochMs, type EpochMs } from '../time';

export const EventSource = { ec2: 'aws.ec2', health: 'aws.health' } as const;

export const DetailType = {
  spotInterruption: 'EC2 Spot Instance Interruption Warning',
  rebalanceRecommendation: 'EC2 Instance Rebalance Recommendation',
  instanceStateChange: 'EC2 Instance State-change Notification',
  scheduledChange: 'AWS Health Event',
  capacityReservationInterruption: 'EC2 Capacity Reservation Instance Interruption Warning',
} as const;

/** Instance states whose notification means the node is (about to be) gone. */
const InterruptingStates: ReadonlySet<string> = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

const instanceId = z.string().check(z.regex(/^i-[0-9a-f]{8,17}$/, 'expected an EC2 instance id (i-…)'));

const envelope = z.object({
  version: z.string(),
  id: z.string().check(z.minLength(1)),
  'detail-type': z.string().check(z.minLength(1)),
  source: z.string().check(z.minLength(1)),
  account: z.optional(z.string()),
  time: z.optional(z.string()),
  region: z.optional(z.string()),
  resources: z.optional(z.array(z.string())),
  detail: z.record(z.string(), z.unknown()),
});

const spotDetail = z.object({ 'instance-id': instanceId, 'instance-action': z.optional(z.string()) });
const rebalanceDetail = z.object({ 'instance-id': instanceId });
const stateChangeDetail = z.object({ 'instance-id': instanceId, state: z.string().check(z.minLength(1)) });
const capacityReservationDetail = z.object({
  'instance-id': instanceId,
  'instance-action': z.optional(z.string()),
  'availability-zone-id': z.optional(z.string()),
  'capacity-reservation-id': z.optional(z.string()),
});
const healthDetail = z.object({
  service: z.string(),
  eventTypeCategory: z.string(),
  eventTypeCode: z.optional(z.string()),
  eventArn: z.optional(z.string()),
  affectedEntities: z._default(z.optional(z.array(z.object({ entityValue: z.string() }))), []),
});

interface MessageBase {
  /** EventBridge event id: stable across duplicate deliveries of the same event. */
  eventId: string;
  source: string;
  detailType: string;
  /** Event time, when the event carries a parseable one. */
  time?: EpochMs;
  region?: string;
}

export type InterruptionMessage =
  | (MessageBase & { kind: 'SpotInterruption'; instanceIds: [string]; instanceAction?: string })
  | (MessageBase & { kind: 'RebalanceRecommendation'; instanceIds: [string] })
  | (MessageBase & { kind: 'InstanceStateChange'; instanceIds: [string]; state: string })
  | (MessageBase & { kind: 'ScheduledChange'; instanceIds: string[]; eventTypeCode?: string; eventArn?: string })
  | (MessageBase & { kind: 'CapacityReservationInterruption'; instanceIds: [string]; capacityReservationId?: string })
  | (MessageBase & { kind: 'NoOp'; instanceIds: string[]; reason: string });

function describeIssues(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

function parseDetail<T extends z.ZodMiniType>(schema: T, detail: unknown, what: string, eventId: string): z.infer<T> {
  const result = schema.safeParse(detail);
  if (!result.success) {
    throw new EventMalformedError(`interruption message ${eventId}: invalid ${what} detail: ${describeIssues(result.error)}`);
  }
  return result.data;
}

/**
 * Parses one SQS message body. Throws EventMalformedError when the body is not JSON, not an
 * EventBridge event, or a known event kind with an invalid detail. Unknown or filtered events parse
 * to kind NoOp (they are dropped, never retried).
 */
export function parseInterruptionMessage(body: string): InterruptionMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    throw new EventMalformedError(`interruption message body is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const env = envelope.safeParse(raw);
  if (!env.success) {
    throw new EventMalformedError(`interruption message is not an EventBridge event: ${describeIssues(env.error)}`);
  }
  const e = env.data;
  const parsedTime = e.time ? Date.parse(e.time) : Number.NaN;
  const base: MessageBase = {
    eventId: e.id,
    source: e.source,
    detailType: e['detail-type'],
    ...(Number.isFinite(parsedTime) ? { time: epochMs(parsedTime) } : {}),
    ...(e.region ? { region: e.region } : {}),
  };
  const noOp = (reason: string, instanceIds: string[] = []): InterruptionMessage => ({ ...base, kind: 'NoOp', instanceIds, reason });

  if (e.version !== '0') return noOp(`unsupported event version "${e.version}"`);

  if (e.source === EventSource.ec2) {
    switch (e['detail-type']) {
      case DetailType.spotInterruption: {
        const d = parseDetail(spotDetail, e.detail, 'spot interruption', e.id);
        return {
          ...base,
          kind: 'SpotInterruption',
          instanceIds: [d['instance-id']],
          ...(d['instance-action'] ? { instanceAction: d['instance-action'] } : {}),
        };
      }
      case DetailType.rebalanceRecommendation: {
        const d = parseDetail(rebalanceDetail, e.detail, 'rebalance recommendation', e.id);
        return { ...base, kind: 'RebalanceRecommendation', instanceIds: [d['instance-id']] };
      }
      case DetailType.instanceStateChange: {
        const d = parseDetail(stateChangeDetail, e.detail, 'instance state change', e.id);
        if (!InterruptingStates.has(d.state)) return noOp(`instance state "${d.state}" is not an interruption`, [d['instance-id']]);
        return { ...base, kind: 'InstanceStateChange', instanceIds: [d['instance-id']], state: d.state };
      }
      case DetailType.capacityReservationInterruption: {
        const d = parseDetail(capacityReservationDetail, e.detail, 'capacity reservation interruption', e.id);
        return {
          ...base,
          kind: 'CapacityReservationInterruption',
          instanceIds: [d['instance-id']],
          ...(d['capacity-reservation-id'] ? { capacityReservationId: d['capacity-reservation-id'] } : {}),
        };
      }
      default:
        return noOp(`unknown detail-type "${e['detail-type']}" from aws.ec2`);
    }
  }

  if (e.source === EventSource.health && e['detail-type'] === DetailType.scheduledChange) {
    const d = parseDetail(healthDetail, e.detail, 'AWS Health', e.id);
    if (d.service !== 'EC2') return noOp(`AWS Health event for service "${d.service}"`);
    if (d.eventTypeCategory !== 'scheduledChange') return noOp(`AWS Health event category "${d.eventTypeCategory}"`);
    // affectedEntities is authoritative; `resources` lists the same ids and is the fallback.
    const entities = d.affectedEntities.length > 0 ? d.affectedEntities.map((a) => a.entityValue) : (e.resources ?? []);
    const ids = [...new Set(entities.filter((v) => instanceId.safeParse(v).success))];
    if (ids.length === 0) return noOp('AWS Health scheduled change affects no EC2 instance');
    return {
      ...base,
      kind: 'ScheduledChange',
      instanceIds: ids,
      ...(d.eventTypeCode ? { eventTypeCode: d.eventTypeCode } : {}),
      ...(d.eventArn ? { eventArn: d.eventArn } : {}),
    };
  }

  return noOp(`unknown event "${e.source}" / "${e['detail-type']}"`);
}
