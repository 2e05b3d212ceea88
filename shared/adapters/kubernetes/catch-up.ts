/**
 * One bounded catch-up read of a collection: a WATCH from a resourceVersion the caller already holds, with
 * `timeoutSeconds` so the API server itself ends the stream. The API server first sends every change after that
 * resourceVersion (from its watch cache, in order), then live changes until the timeout, so when the stream ends the
 * caller's copy is at least as new as the moment the watch started — the changes since the last read, without
 * listing the collection again. A resourceVersion the server no longer keeps answers 410 Gone (the caller lists
 * again), as does anything else unexpected.
 *
 * The request carries a tagged User-Agent and publishes each line on `nodewright:watch-event`, as the controller's
 * streams do, so the simulator lets time move only once what the server wrote has been received.
 */
import diagnostics from 'node:diagnostics_channel';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import fetch, { type Headers, type RequestInit } from 'node-fetch';
import { firstOrTimeout, type Sleep } from './timeout';
import { nextWatchId, WATCH_EVENT_CHANNEL } from './watch';

type Json = Record<string, unknown>;

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CatchUpRequest {
  /** The collection's path, e.g. `/api/v1/pods`. */
  path: string;
  fieldSelector?: string;
  /** Where the caller's copy stands. */
  resourceVersion: string;
  /** How long the server keeps the stream open (whole seconds, as the API takes them). */
  windowSeconds: number;
  /** The function reading (`nodewright-provisioner`): audit logs and the simulator tell it from the controller. */
  agent: string;
}

/** Caught up to `resourceVersion`, or not (`reason`): the caller lists again. */
export type CatchUpResult = { ok: true; resourceVersion: string; changes: number } | { ok: false; reason: string };

const channel = diagnostics.channel(WATCH_EVENT_CHANNEL);
/** A server that has not ended a stream this long after its own timeout is not answering as it should. */
const GRACE_MS = 10_000;

export async function catchUp(kc: KubeConfig, req: CatchUpRequest, sleep: Sleep, onChange: (type: ChangeType, object: Json) => void): Promise<CatchUpResult> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) return { ok: false, reason: 'KubeConfig has no current cluster' };
  const url = new URL(cluster.server.replace(/\/+$/, '') + req.path);
  const query = { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: req.resourceVersion, timeoutSeconds: String(req.windowSeconds) };
  for (const [k, v] of Object.entries({ ...query, ...(req.fieldSelector ? { fieldSelector: req.fieldSelector } : {}) })) url.searchParams.set(k, v);
  const id = nextWatchId();
  const abort = new AbortController();
  const init = await kc.applyToFetchOptions({ method: 'GET' });
  (init.headers as Headers).set('Accept', 'application/json');
  (init.headers as Headers).set('User-Agent', `${req.agent} (watch ${id})`);
  const work = (async (): Promise<CatchUpResult> => {
    const res = await fetch(url.toString(), { ...init, method: 'GET', signal: abort.signal } as RequestInit);
    if (res.status !== 200) {
      res.body.resume();
      return { ok: false, reason: `HTTP ${res.status}` };
    }
    let at = req.resourceVersion;
    let changes = 0;
    let failure: string | undefined;
    const lines = createInterface({ input: res.body });
    lines.on('line', (line: string) => {
      let event: { type?: string; object?: Json };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        return;
      }
      const type = String(event.type);
      if (channel.hasSubscribers) channel.publish({ id, kind: req.path, type });
      if (failure !== undefined) return;
      const o = event.object ?? {};
      if (type === 'ERROR') {
        failure = `${String(o.code ?? '')} ${String(o.message ?? o.reason ?? '')}`.trim();
        return;
      }
      const rv = (o.metadata as Json | undefined)?.resourceVersion;
      if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
        onChange(type, o);
        changes++;
      }
      if (typeof rv === 'string' && rv) at = rv;
    });
    await new Promise<void>((resolve, reject) => {
      res.body.on('error', reject);
      lines.on('close', resolve);
    });
    return failure !== undefined ? { ok: false, reason: failure } : { ok: true, resourceVersion: at, changes };
  })();
  const r = await firstOrTimeout(work, req.windowSeconds * 1000 + GRACE_MS, sleep).catch((e: unknown) => ({
    ok: true as const,
    value: { ok: false as const, reason: e instanceof Error ? e.message : String(e) },
  }));
  abort.abort();
  return r.ok ? r.value : { ok: false, reason: `the watch did not end within ${req.windowSeconds + GRACE_MS / 1000} s` };
}
