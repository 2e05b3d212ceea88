/**
 * What invokes the functions besides Step Functions, as serverless.yml wires them: EventBridge schedules
 * (`rate(...)`, on virtual time; reservedConcurrency 1 means a run still going skips the next tick, as a
 * throttled invocation would) and the SQS interruption queue (batches of up to 10 delivered to the function,
 * records it reports as failed redelivered after the visibility timeout, dropped to the DLQ after maxReceiveCount).
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
  sentMs: number;
}

export interface QueueOptions {
  functionKey: string;
  queueArn: string;
  region: string;
  batchSize?: number;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
}

export class SimulatedQueue {
  private readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  private scheduled = false;
  private polling = false;
  delivered = 0;
  /** SQS requests made on the queue: SendMessage, ReceiveMessage that returned messages, DeleteMessageBatch (metering.ts). */
  readonly requests = { sends: 0, receives: 0, deletes: 0 };

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
    this.messages.push({ id: uuid, body, receiveCount: 0, sentMs: this.clock.now() });
    this.requests.sends++;
    // EventBridge delivers at least once: the same event (same id, same body) again, as another SQS message.
    if (this.duplicates?.()) {
      const again = createHash('sha256').update(`${uuid}|again`).digest('hex');
      this.messages.push({
        id: `${again.slice(0, 8)}-${again.slice(8, 12)}-${again.slice(12, 16)}-${again.slice(16, 20)}-${again.slice(20, 32)}`,
        body,
        receiveCount: 0,
        sentMs: this.clock.now() + 1_000,
      });
      this.requests.sends++;
    }
    this.poll();
  }

  /** Fault injection: when it answers true, an event is delivered twice under two message ids. */
  duplicates?: () => boolean;

  pending(): number {
    return this.messages.length;
  }

  private poll(delayMs = 0): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.clock.after(delayMs, () => {
      this.scheduled = false;
      void this.deliver();
    });
  }

  private async deliver(): Promise<void> {
    if (this.polling) return;
    const now = this.clock.now();
    const visible = this.messages.filter((m) => m.sentMs <= now).slice(0, this.opts.batchSize ?? 10);
    if (visible.length === 0) return;
    this.polling = true;
    this.requests.receives++;
    for (const m of visible) m.receiveCount++;
    const records: SQSRecord[] = visible.map((m) => ({
      messageId: m.id,
      receiptHandle: `${m.id}-${m.receiveCount}`,
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
    const event: SQSEvent = { Records: records };
    await this.clock.track(`sqs:${this.opts.functionKey}`, async () => {
      let failed = new Set<string>(visible.map((m) => m.id));
      const t = this.clock.elapsedSeconds();
      try {
        const out = (await this.invoke(this.opts.functionKey, event)) as { batchItemFailures?: { itemIdentifier: string }[] } | undefined;
        failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        this.record({ functionKey: this.opts.functionKey, t, ok: true });
      } catch (e) {
        this.record({ functionKey: this.opts.functionKey, t, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      }
      const hidden = this.clock.now() + (this.opts.visibilityTimeoutSeconds ?? 45) * 1000;
      if (visible.some((m) => !failed.has(m.id))) this.requests.deletes++;
      for (const m of visible) {
        const i = this.messages.indexOf(m);
        if (!failed.has(m.id)) {
          this.messages.splice(i, 1);
          this.delivered++;
        } else if (m.receiveCount >= (this.opts.maxReceiveCount ?? 3)) {
          this.messages.splice(i, 1);
          this.deadLetters.push(m);
        } else {
          m.sentMs = hidden;
        }
      }
    });
    this.polling = false;
    if (this.messages.length > 0) {
      const next = Math.min(...this.messages.map((m) => m.sentMs));
      this.poll(Math.max(0, next - this.clock.now()));
    }
  }
}
