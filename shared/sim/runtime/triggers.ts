/**
 * What invokes the functions besides Step Functions, as serverless.yml wires them: EventBridge schedules
 * (`rate(...)`, on virtual time; reservedConcurrency 1 means a run still going skips the next tick, as a
 * throttled invocation would) and the SQS interruption queue (SimulatedQueue: the queue's and the event source's
 * settings as deployed).
 */
import { createHash } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { VirtualClock } from '../clock';
import type { Ec2Event } from '../aws/ec2-world';
import type { DeployedFunction } from './functions';

export type Invoke = (functionKey: string, event: unknown) => Promise<unknown>;

export interface InvocationRecord {
  functionKey: string;
  t: number;
  ok: boolean;
  error?: string;
}

export function startSchedules(
  clock: VirtualClock,
  functions: DeployedFunction[],
  invoke: Invoke,
  region: string,
  record: (r: InvocationRecord) => void,
): () => void {
  const stops: (() => void)[] = [];
  for (const fn of functions) {
    for (const schedule of fn.schedules) {
      let running = 0;
      // A function whose run spans several of its own ticks (the controller: 900 s vs 1 min) was already running
      // when the scenario began; the others first fire one interval in, as EventBridge does after a deploy.
      const first = fn.timeoutSeconds >= 5 * schedule.everySeconds ? clock.now() : clock.now() + schedule.everySeconds * 1000;
      stops.push(
        clock.every(
          schedule.everySeconds * 1000,
          () => {
            if (running >= (fn.reservedConcurrency ?? 1)) return;
            running++;
            const event = schedule.input ?? {
              version: '0',
              id: `sim-${fn.key}-${clock.now()}`,
              'detail-type': 'Scheduled Event',
              source: 'aws.events',
              account: '000000000000',
              time: new Date(clock.now()).toISOString(),
              region,
              resources: [`arn:aws:events:${region}:000000000000:rule/${fn.key}`],
              detail: {},
            };
            void clock.track(`schedule:${fn.key}`, async () => {
              const t = clock.elapsedSeconds();
              try {
                await invoke(fn.key, event);
                record({ functionKey: fn.key, t, ok: true });
              } catch (e) {
                record({ functionKey: fn.key, t, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
              } finally {
                running--;
              }
            });
          },
          first,
        ),
      );
    }
  }
  return () => stops.forEach((s) => s());
}

interface QueuedMessage {
  id: string;
  body: string;
  receiveCount: number;
  /** When SendMessage put it on the queue (retention counts from here). */
  sentMs: number;
  /** Hidden until then: not yet sent (a duplicate's delay), or received and within its visibility timeout. */
  visibleAtMs: number;
  /** The receipt handle of its latest receive (ChangeMessageVisibility names the message by it). */
  receipt?: string;
}

export interface QueueOptions {
  functionKey: string;
  queueArn: string;
  region: string;
  batchSize?: number;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /** MessageRetentionPeriod: a message older than this is deleted, handled or not (default 345600, SQS's 4 days). */
  retentionSeconds?: number;
  /** The event source's maximumBatchingWindow: how long a partial batch waits for more messages (default 0). */
  maximumBatchingWindowSeconds?: number;
  /**
   * The event source's maximumConcurrency: batches handled at once. Without it, the event source starts with
   * 5 concurrent pollers (BILLING_ASSUMPTIONS.sqsPollers), which is what the simulator assumes.
   */
  maximumConcurrency?: number;
}

/**
 * The interruption queue and Lambda's SQS event source: batches of up to `batchSize` visible messages, up to
 * `maximumConcurrency` at once; a received message is hidden for the visibility timeout (from its receive, or as
 * long as ChangeMessageVisibility says); failed records come back when that ends, and go to the DLQ after
 * maxReceiveCount receives; a message older than the retention period is deleted unhandled, as SQS does.
 */
export class SimulatedQueue {
  private readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  /** Messages SQS deleted at the end of their retention period without a successful delivery. */
  readonly expired: QueuedMessage[] = [];
  private scheduledAt: number | undefined;
  private cancelScheduled: (() => void) | undefined;
  private inFlight = 0;
  delivered = 0;
  /**
   * SQS requests made on the queue: SendMessage, ReceiveMessage that returned messages, DeleteMessageBatch, and the
   * function's ChangeMessageVisibility(Batch) calls (counted by the SQS mock) (metering.ts).
   */
  readonly requests = { sends: 0, receives: 0, deletes: 0, visibilityChanges: 0 };

  constructor(
    private readonly clock: VirtualClock,
    private readonly invoke: Invoke,
    private readonly opts: QueueOptions,
    private readonly record: (r: InvocationRecord) => void,
  ) {}

  /** An EventBridge rule target: the event as the message body. */
  sendEvent(e: Ec2Event): void {
    const time = new Date(this.clock.now()).toISOString();
    const id = createHash('sha256')
      .update(`${e['detail-type']}|${JSON.stringify(e.detail)}|${this.clock.now()}`)
      .digest('hex');
    const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`;
    const body = JSON.stringify({
      version: '0',
      id: uuid,
      'detail-type': e['detail-type'],
      source: e.source,
      account: '000000000000',
      time,
      region: this.opts.region,
      resources: e.resources ?? [],
      detail: e.detail,
    });
    const now = this.clock.now();
    this.messages.push({ id: uuid, body, receiveCount: 0, sentMs: now, visibleAtMs: now });
    this.requests.sends++;
    // EventBridge delivers at least once: the same event (same id, same body) again, as another SQS message.
    if (this.duplicates?.()) {
      const again = createHash('sha256').update(`${uuid}|again`).digest('hex');
      this.messages.push({
        id: `${again.slice(0, 8)}-${again.slice(8, 12)}-${again.slice(12, 16)}-${again.slice(16, 20)}-${again.slice(20, 32)}`,
        body,
        receiveCount: 0,
        sentMs: now + 1_000,
        visibleAtMs: now + 1_000,
      });
      this.requests.sends++;
    }
    this.poll();
  }

  /** Fault injection: when it answers true, an event is delivered twice under two message ids. */
  duplicates?: () => boolean;

  /** ChangeMessageVisibility: the message received with this handle becomes visible `seconds` from now. False for a stale handle. */
  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const m = this.messages.find((x) => x.receipt === receiptHandle);
    if (!m) return false;
    m.visibleAtMs = this.clock.now() + Math.max(0, seconds) * 1000;
    this.poll();
    return true;
  }

  pending(): number {
    return this.messages.length;
  }

  /** Schedules the next look at the queue `delayMs` from now (the earliest wins). */
  private poll(delayMs = 0): void {
    const at = this.clock.now() + Math.max(0, delayMs);
    if (this.scheduledAt !== undefined && this.scheduledAt <= at) return;
    this.cancelScheduled?.();
    this.scheduledAt = at;
    this.cancelScheduled = this.clock.at(at, () => {
      this.scheduledAt = undefined;
      this.cancelScheduled = undefined;
      this.deliver();
    });
  }

  /** Deletes messages past their retention period (SQS deletes them whether or not they were handled). */
  private expire(now: number): void {
    const retentionMs = (this.opts.retentionSeconds ?? 345_600) * 1000;
    for (const m of [...this.messages]) {
      if (m.sentMs + retentionMs > now) continue;
      this.messages.splice(this.messages.indexOf(m), 1);
      this.expired.push(m);
    }
  }

  private deliver(): void {
    const now = this.clock.now();
    this.expire(now);
    const batchSize = this.opts.batchSize ?? 10;
    const windowMs = (this.opts.maximumBatchingWindowSeconds ?? 0) * 1000;
    while (this.inFlight < (this.opts.maximumConcurrency ?? 5)) {
      const visible = this.messages.filter((m) => m.visibleAtMs <= now);
      if (visible.length === 0) break;
      // A partial batch waits for more messages until the oldest visible one has waited the batching window.
      const since = Math.min(...visible.map((m) => m.visibleAtMs));
      if (visible.length < batchSize && since + windowMs > now) {
        this.poll(since + windowMs - now);
        return;
      }
      this.receive(visible.slice(0, batchSize), now);
    }
    this.pollNext(now);
  }

  /** The next time something changes: a hidden message becomes visible, or the oldest one expires. */
  private pollNext(now: number): void {
    if (this.messages.length === 0 || this.inFlight >= (this.opts.maximumConcurrency ?? 5)) return;
    const retentionMs = (this.opts.retentionSeconds ?? 345_600) * 1000;
    const next = Math.min(...this.messages.map((m) => Math.min(m.visibleAtMs, m.sentMs + retentionMs)));
    this.poll(Math.max(0, next - now));
  }

  private receive(batch: QueuedMessage[], now: number): void {
    this.requests.receives++;
    this.inFlight++;
    for (const m of batch) {
      m.receiveCount++;
      m.receipt = `${m.id}-${m.receiveCount}`;
      m.visibleAtMs = now + (this.opts.visibilityTimeoutSeconds ?? 45) * 1000;
    }
    const records: SQSRecord[] = batch.map((m) => ({
      messageId: m.id,
      receiptHandle: m.receipt as string,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentMs),
        SenderId: 'events.amazonaws.com',
        ApproximateFirstReceiveTimestamp: String(now),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(m.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.opts.queueArn,
      awsRegion: this.opts.region,
    }));
    void this.clock.track(`sqs:${this.opts.functionKey}`, async () => {
      let failed = new Set<string>(batch.map((m) => m.id));
      const t = this.clock.elapsedSeconds();
      try {
        const out = (await this.invoke(this.opts.functionKey, { Records: records } satisfies SQSEvent)) as
          { batchItemFailures?: { itemIdentifier: string }[] } | undefined;
        failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        this.record({ functionKey: this.opts.functionKey, t, ok: true });
      } catch (e) {
        this.record({ functionKey: this.opts.functionKey, t, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      }
      this.settle(batch, failed);
      this.inFlight--;
      this.deliver();
    });
  }

  /** After an invocation: handled messages are deleted; failed ones stay hidden until their visibility ends, or go to the DLQ. */
  private settle(batch: QueuedMessage[], failed: Set<string>): void {
    if (batch.some((m) => !failed.has(m.id))) this.requests.deletes++;
    for (const m of batch) {
      const i = this.messages.indexOf(m);
      if (i < 0) continue; // expired while it was being handled
      if (!failed.has(m.id)) {
        this.messages.splice(i, 1);
        this.delivered++;
      } else if (m.receiveCount >= (this.opts.maxReceiveCount ?? 3)) {
        this.messages.splice(i, 1);
        this.deadLetters.push(m);
      }
    }
  }
}
