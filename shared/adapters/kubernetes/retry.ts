/**
 * Retries for every Kubernetes API call (./apis.ts): 429 and 5xx answers and connection failures are retried with
 * exponential backoff (on the injected clock, so the simulator's virtual time moves), then surface as
 * KubernetesApiUnavailableError — a name the state machines' Retry matches. Every call nodewright makes is
 * idempotent (creates by name, merge patches, evictions answer 404/409 once done), so a repeat is safe.
 *
 * Every attempt also has a timeout (default 10 s, on the same clock): a request the server never answers is
 * aborted and counts as a connection failure. The HTTP client has no request timeout of its own, and a Lambda whose
 * only request hangs would otherwise wait until the function's own timeout. No attempt starts that could
 * end past the call's budget (default 25 s), so a hung API server fails a call in ≈ 21 s — inside the
 * shortest function timeout (interruption, 30 s), leaving the retry to the invoker (SQS redelivery, the
 * state machine's Retry, the controller's next round).
 */
import { KubernetesApiUnavailableError } from '../../core/errors';
import { httpCode } from './rest';
import { firstOrTimeout, type Sleep } from './timeout';
import { systemClock } from '../clock';

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

export interface RetryOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** First backoff (ms), doubled each time (default 250). */
  baseMs?: number;
  /** Each attempt is aborted after this long (default 10 s). */
  timeoutMs?: number;
  /** No attempt starts that could end later than this after the first began (default 25 s). */
  budgetMs?: number;
  /** Waits `ms`, or until `signal` aborts (the composition root passes its clock's sleep). */
  sleep?: Sleep;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_CALL_BUDGET_MS = 25_000;

/** A Kubernetes request that got no answer within its timeout (aborted; retryable like a dropped connection). */
class KubernetesRequestTimedOutError extends Error {
  override readonly name = 'KubernetesRequestTimedOutError' as const;
  readonly code = 'ETIMEDOUT';
}

export function isRetryable(err: unknown, method = ''): boolean {
  const status = httpCode(err);
  // The Eviction API answers 429 when a PDB blocks the eviction and 500 when several PDBs select the pod:
  // answers, not overloads — and the drain tries every pod again on its next pass anyway. No answer at all (a
  // timeout, a dropped connection) is retried like any call: evicting a pod already gone answers 404.
  if (status !== undefined) return !/Eviction/.test(method) && RETRYABLE_STATUS.has(status);
  const e = err as { code?: unknown; errno?: unknown; type?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  const code = String(e?.code ?? e?.errno ?? e?.cause?.code ?? '');
  return RETRYABLE_CODES.has(code) || e?.type === 'system' || e?.name === 'FetchError';
}

/** One attempt, aborted (the request's socket closed) if it has no answer after `timeoutMs`. */
async function attemptWithTimeout<T>(what: string, call: (signal: AbortSignal) => Promise<T>, timeoutMs: number, sleep: Sleep): Promise<T> {
  const request = new AbortController();
  const r = await firstOrTimeout(call(request.signal), timeoutMs, sleep);
  if (r.ok) return r.value;
  const err = new KubernetesRequestTimedOutError(`${what}: no answer within ${timeoutMs / 1000} s`);
  request.abort(err);
  throw err;
}

export async function retrying<T>(what: string, call: (signal: AbortSignal) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 4;
  const sleep = opts.sleep ?? systemClock.sleep;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const budgetMs = opts.budgetMs ?? DEFAULT_CALL_BUDGET_MS;
  let spentMs = 0; // worst case so far: each attempt counted at its timeout when it timed out
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptWithTimeout(what, call, timeoutMs, sleep);
    } catch (err) {
      if (!isRetryable(err, what)) throw err;
      const backoffMs = (opts.baseMs ?? 250) * 2 ** (attempt - 1);
      spentMs += (err instanceof KubernetesRequestTimedOutError ? timeoutMs : 0) + backoffMs;
      if (attempt >= attempts || spentMs + timeoutMs > budgetMs) {
        const status = httpCode(err);
        throw new KubernetesApiUnavailableError(
          `${what}: Kubernetes API unavailable after ${attempt} attempts (${status ?? (err instanceof Error ? err.message : String(err))})`,
          { cause: err },
        );
      }
      await sleep(backoffMs);
    }
  }
}
