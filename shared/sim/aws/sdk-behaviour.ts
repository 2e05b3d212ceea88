/**
 * What the SDK does around a request that the simulator's mocks skip: aws-sdk-client-mock replaces `send`, so
 * the retry middleware and the HTTP handler's request timeout never run. This puts them back on virtual time,
 * outside the mocks and the injected faults:
 * - **retries**: the client's own retry strategy (`client.config.retryStrategy()` — standard mode, 3 attempts,
 *   its retry quota) decides whether and how often to retry, on the same error classification as the SDK's
 *   retry middleware (throttling, transient, server error, else client error); the backoff is the strategy's
 *   full-jitter formula (random × min(base × 2^n, 20 s), with the SDK's own bases: `Retry.delay()` and
 *   `Retry.throttlingDelay()`) drawn from the
 *   scenario's seeded sequence instead of Math.random, so a run stays reproducible.
 * - **request timeout**: a `hang` fault holds the request for the client's configured `requestTimeout`
 *   (awsClientConfig: 15 s) and then fails it as the handler does (`TimeoutError`, ETIMEDOUT); a client with
 *   no request timeout waits for ever, as in AWS — until the function's own timeout. A `timeout` fault is
 *   the ambiguous case: the service applies the request and the answer is lost the same way, so the SDK's
 *   retry repeats a write that already happened (CreateFleet, StartExecution, a conditional put).
 */
import { INITIAL_RETRY_TOKENS, isThrottlingError, isTransientError, MAXIMUM_RETRY_DELAY, NO_RETRY_INCREMENT, Retry } from '@smithy/core/retry';
import type { VirtualClock } from '../clock';
import { awsFault, type FaultPlan } from '../faults';
import { hashUnit } from '../hash';

type SendFn = (this: unknown, command: unknown, ...rest: unknown[]) => Promise<unknown>;
interface ClientLike {
  config?: { maxAttempts?: () => Promise<number>; requestHandler?: { configProvider?: Promise<{ requestTimeout?: number }> } };
}

/** The SDK's classification: throttling and transient errors are retried, anything else is an answer. */
function retryKind(e: unknown): 'THROTTLING' | 'TRANSIENT' | undefined {
  const err = e as Parameters<typeof isThrottlingError>[0];
  return isThrottlingError(err) ? 'THROTTLING' : isTransientError(err) ? 'TRANSIENT' : undefined;
}

async function requestTimeoutOf(client: ClientLike): Promise<number> {
  const cfg = await client.config?.requestHandler?.configProvider;
  return cfg?.requestTimeout ?? 0;
}

export interface SdkBehaviourOptions {
  clock: VirtualClock;
  plan: FaultPlan;
  seed: number;
  clients: { service: string; cls: { prototype: object } }[];
}

/** Wraps each client class's (mocked) `send`; returns the undo. */
export function installSdkBehaviour(opts: SdkBehaviourOptions): () => void {
  let draws = 0;
  const jitter = () => hashUnit(opts.seed, 'sdk-retry', draws++);
  const undo: (() => void)[] = [];
  /** The retry quota of each client instance, as the SDK keeps it per client. */
  const capacity = new WeakMap<object, number>();
  for (const { service, cls } of opts.clients) {
    const proto = cls.prototype as { send: SendFn };
    const original = proto.send;
    const attempt = async (client: ClientLike, command: unknown, rest: unknown[]): Promise<unknown> => {
      const kind = opts.plan.check(service);
      if (kind === 'hang' || kind === 'timeout') {
        // timeout: the service did the work, its answer is lost — the retry must be idempotent.
        if (kind === 'timeout') await original.call(client, command, ...rest).catch(() => undefined);
        const timeoutMs = await requestTimeoutOf(client);
        if (!timeoutMs) return new Promise<never>(() => undefined);
        await opts.clock.sleep(timeoutMs);
        throw Object.assign(
          new Error(
            `@smithy/node-http-handler - [ERROR] a request has exceeded the configured ${timeoutMs} ms requestTimeout. (injected fault: ${service} ${kind})`,
          ),
          { name: 'TimeoutError', code: 'ETIMEDOUT' },
        );
      }
      if (kind) throw awsFault(service, kind);
      return original.call(client, command, ...rest);
    };
    proto.send = async function (this: unknown, command: unknown, ...rest: unknown[]) {
      const client = this as ClientLike & object;
      const maxAttempts = (await client.config?.maxAttempts?.()) ?? 3;
      let quota = capacity.get(client) ?? INITIAL_RETRY_TOKENS;
      for (let retries = 0; ; retries++) {
        try {
          const out = await attempt(client, command, rest);
          capacity.set(client, Math.min(INITIAL_RETRY_TOKENS, quota + NO_RETRY_INCREMENT));
          return out;
        } catch (error) {
          const type = retryKind(error);
          const cost = type === Retry.modifiedCostType() ? Retry.throttlingCost() : Retry.cost();
          if (!type || retries + 1 >= maxAttempts || quota < cost) throw error;
          quota -= cost;
          capacity.set(client, quota);
          const base = type === 'THROTTLING' ? Retry.throttlingDelay() : Retry.delay();
          await opts.clock.sleep(Math.floor(jitter() * Math.min(base * 2 ** retries, MAXIMUM_RETRY_DELAY)));
        }
      }
    };
    undo.push(() => {
      proto.send = original;
    });
  }
  return () => undo.reverse().forEach((u) => u());
}
