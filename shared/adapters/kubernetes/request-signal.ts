/**
 * The abort signal of the Kubernetes request being made: `retrying` (./retry.ts) runs each attempt inside
 * `withRequestSignal`, and the KubeConfig (./config.ts) puts the signal on the request it authenticates, so
 * a request that outlives its timeout is really aborted (socket closed), not only abandoned. client-node 1.4
 * has no request timeout of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { KubeConfig } from '@kubernetes/client-node';

const current = new AsyncLocalStorage<AbortSignal>();

export function withRequestSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  return current.run(signal, call);
}

type Context = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** Makes every request this KubeConfig authenticates carry the current attempt's abort signal. */
export function abortableRequests(kc: KubeConfig): KubeConfig {
  const original = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context: Context) => {
    await original(context);
    const signal = current.getStore();
    if (signal) context.setSignal(signal);
  };
  return kc;
}
