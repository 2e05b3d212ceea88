/**
 * Plain-JSON requests to the API server, authenticated by a client-node KubeConfig. The KubeConfig does what
 * it is for — the cluster, the CA and keep-alive agent, the bearer token (`applyToFetchOptions`) — and the
 * request goes out over client-node's own HTTP client (node-fetch 2; Node's built-in fetch ignores the agent
 * that carries the cluster CA). We do not use client-node's generated API classes: they turn every object into
 * model instances that the adapters then had to serialize back to the API's JSON, which is what the core's
 * mappers read, and their model/serializer tables (≈ 1.4 MB minified, they do not tree-shake) were most of
 * every Lambda bundle.
 *
 * A failed answer throws `KubernetesApiError` with the HTTP status as `code` and the body as `body`, the shape
 * client-node's ApiException has, so `httpCode`/`tolerate` and the retry policy read either.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import fetch from 'node-fetch';

export type Query = Record<string, string | number | boolean | undefined>;

export interface KubeRequest {
  query?: Query;
  /** Sent as JSON; a PATCH body is a JSON merge patch (RFC 7386), the only kind nodewright sends. */
  body?: unknown;
  /** Aborts the request (its socket closed): ./retry.ts passes each attempt's timeout here. */
  signal?: AbortSignal;
}

class KubernetesApiError extends Error {
  override readonly name = 'KubernetesApiError' as const;
  constructor(
    readonly code: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
  }
}

/** HTTP status of a failed call (KubernetesApiError.code, as client-node's ApiException.code), or undefined for non-HTTP failures. */
export function httpCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const CONTENT_TYPE: Partial<Record<Method, string>> = { POST: 'application/json', PATCH: 'application/merge-patch+json' };

/** The server's `Status` message of a failed answer, if it sent one. */
function statusMessage(text: string): string | undefined {
  try {
    const m = (JSON.parse(text) as { message?: unknown }).message;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** One request; the caller (./retry.ts) decides about repeats. Resolves to the parsed JSON answer. */
export async function kubeRequest<T>(kc: KubeConfig, method: Method, path: string, req: KubeRequest = {}): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('KubeConfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const init = await kc.applyToFetchOptions({ method });
  const headers = init.headers as import('node-fetch').Headers;
  headers.set('Accept', 'application/json');
  const contentType = req.body !== undefined ? CONTENT_TYPE[method] : undefined;
  if (contentType) headers.set('Content-Type', contentType);
  const res = await fetch(url.toString(), {
    ...init,
    method,
    headers,
    ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
    ...(req.signal ? { signal: req.signal as import('node-fetch').RequestInit['signal'] } : {}),
  });
  const text = await res.text();
  if (!res.ok) {
    const message = statusMessage(text);
    throw new KubernetesApiError(res.status, text, `${method} ${path}: HTTP ${res.status}${message ? `: ${message}` : ''}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
