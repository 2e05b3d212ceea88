/**
 * Retries for every client-node API call: 429 and 5xx answers and connection failures are retried with
 * exponential backoff (on the injected clock, so the simulator's virtual time moves), then surface as
 * KubernetesApiUnavailableError — a name the state machines' Retry matches. Every call nodewright makes is
 * idempotent (creates by name, merge patches, evictions answer 404/409 once done), so a repeat is safe.
 */
import { KubernetesApiUnavailableError } from '../../core/errors';
import { httpCode } from './apis';

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

export interface RetryOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** First backoff (ms), doubled each time (default 250). */
  baseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function isRetryable(err: unknown, method = ''): boolean {
  const status = httpCode(err);
  // The Eviction API answers 429 when a PDB blocks the eviction and 500 when several PDBs select the pod:
  // answers, not overloads — and the drain tries every pod again on its next pass anyway.
  if (/Eviction/.test(method)) return false;
  if (status !== undefined) return RETRYABLE_STATUS.has(status);
  const e = err as { code?: unknown; errno?: unknown; type?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  const code = String(e?.code ?? e?.errno ?? e?.cause?.code ?? '');
  return RETRYABLE_CODES.has(code) || e?.type === 'system' || e?.name === 'FetchError';
}

export async function retrying<T>(what: string, call: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 4;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isRetryable(err, what)) throw err;
      if (attempt >= attempts) {
        const status = httpCode(err);
        throw new KubernetesApiUnavailableError(`${what}: Kubernetes API unavailable after ${attempts} attempts (${status ?? (err instanceof Error ? err.message : String(err))})`, { cause: err });
      }
      await sleep((opts.baseMs ?? 250) * 2 ** (attempt - 1));
    }
  }
}

/** The API object with every method call retried (a Proxy: the generated clients have hundreds of methods). */
export function withRetries<T extends object>(api: T, name: string, opts: RetryOptions = {}): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => retrying(`${name}.${String(prop)}`, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args), opts);
    },
  });
}
