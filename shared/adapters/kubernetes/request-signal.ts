/**
 * The abort signal of the Kubernetes request being made: `retrying` (./retry.ts) runs each attempt inside
 * `withRequestSignal`, and `kubeRequest` (./rest.ts) puts the signal on the request it sends, so a request that
 * outlives its timeout is really aborted (socket closed), not only abandoned.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

export function withRequestSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  return current.run(signal, call);
}

/** The signal of the attempt this request belongs to, if it runs inside `withRequestSignal`. */
export function currentRequestSignal(): AbortSignal | undefined {
  return current.getStore();
}
