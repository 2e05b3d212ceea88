/** The REST front of the fake API server: real paths and JSON, `Status` bodies for errors. Transport-free. */
import { apiGroupDoc, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery';
import { parse as parseYaml } from 'yaml';
import { bindPod, evictPod } from './disruption';
import { checkFieldManager, managerFromUserAgent } from './managed-fields';
import { readScale, writeScale } from './scale';
import { KubeApiStatusError, badRequest, statusBody } from './status';
import { toTable, wantsTable } from './table';
import { openApiV3GroupVersion, openApiV3Root } from './openapi';
import type { KubeStore, WriteOptions } from './store';
import { apiVersionOf, type Json, type KubeObject, type ResourceType } from './types';

export interface KubeRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  /** Raw body text (may be empty). */
  body?: string;
}

export interface KubeResponse {
  status: number;
  body: unknown;
}

export interface HandlerOptions {
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Address reported by /api. */
  serverAddress?: string;
  /**
   * The answer is serialized at once, before any other write (the HTTP server): a LIST then serves the stored
   * objects without copying them first.
   */
  serializedAtOnce?: boolean;
}

export interface Target {
  rt: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

const APPLY = 'application/apply-patch+yaml';
const isApply = (req: KubeRequest) => (req.headers['content-type'] ?? '').split(';')[0].trim() === APPLY;

function parseBody(req: KubeRequest): unknown {
  if (!req.body) return undefined;
  try {
    return JSON.parse(req.body);
  } catch {
    if (isApply(req)) {
      try {
        return parseYaml(req.body) as unknown;
      } catch {
        // reported below
      }
    }
    throw badRequest(`the request body is not valid JSON`);
  }
}

/** The field manager of a write: `?fieldManager=`, else from the User-Agent (as kube-apiserver derives it). */
function writerOf(t: Target, req: KubeRequest): WriteOptions {
  const asked = req.query.get('fieldManager');
  if (asked !== null) checkFieldManager(t.rt.kind, t.name ?? '', asked);
  if (asked === null && isApply(req)) throw badRequest('PATCH with apply-patch+yaml requires the fieldManager parameter');
  return { manager: asked || managerFromUserAgent(req.headers['user-agent']), ...(t.subresource === 'status' ? { subresource: 'status' } : {}) };
}

/** Server-side apply: creates the object when missing, else merges the configuration in; the manager owns what it applied. */
function serverSideApply(store: KubeStore, t: Target, body: unknown, writer: WriteOptions): KubeResponse {
  const applied = body as KubeObject;
  if (!applied || typeof applied !== 'object' || typeof applied.metadata !== 'object') throw badRequest('an apply configuration needs metadata');
  const name = t.name ?? '';
  const opts = { ...writer, applied };
  if (!store.tryGet(t.rt, t.namespace, name)) {
    if (t.subresource) throw new KubeApiStatusError(404, 'NotFound', `${t.rt.resource} "${name}" not found`);
    return { status: 201, body: store.create(t.rt, t.namespace, { ...applied, metadata: { ...applied.metadata, name } }, opts) };
  }
  return { status: 200, body: store.patch(t.rt, t.namespace, name, 'application/merge-patch+json', applied, opts) };
}

function resolveTarget(store: KubeStore, group: string, version: string, rest: string[]): Target | undefined {
  const find = (resource: string) => {
    const rt = store.registry.get(group, resource);
    return rt && rt.version === version ? rt : undefined;
  };
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const rt = find(rest[2]);
    if (rt?.namespaced) return { rt, namespace: rest[1], name: rest[3], subresource: rest[4] };
  }
  const rt = find(rest[0]);
  if (!rt) return undefined;
  return { rt, name: rest[1], subresource: rest[2] };
}

function list(store: KubeStore, t: Target, q: URLSearchParams, stored: boolean): Json {
  if (q.get('watch') === 'true' || q.get('watch') === '1')
    throw new KubeApiStatusError(405, 'MethodNotAllowed', 'watch is not supported by the nodewright fake API server');
  const limit = q.get('limit') ? Number(q.get('limit')) : undefined;
  const r = store.list(
    t.rt,
    {
      namespace: t.namespace,
      labelSelector: q.get('labelSelector') ?? undefined,
      fieldSelector: q.get('fieldSelector') ?? undefined,
      limit: Number.isFinite(limit) ? limit : undefined,
      continue: q.get('continue') ?? undefined,
    },
    { stored },
  );
  return {
    kind: `${t.rt.kind}List`,
    apiVersion: apiVersionOf(t.rt),
    metadata: { resourceVersion: r.resourceVersion, ...(r.continue ? { continue: r.continue, remainingItemCount: r.remainingItemCount } : {}) },
    items: r.items,
  };
}

function deleteOptions(q: URLSearchParams, body: unknown): { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string } } {
  const b = (body ?? {}) as Json;
  const grace = q.get('gracePeriodSeconds') ?? (b.gracePeriodSeconds as number | undefined);
  return {
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
    preconditions: b.preconditions as { uid?: string; resourceVersion?: string } | undefined,
  };
}

function resourceRequest(store: KubeStore, t: Target, req: KubeRequest, opts: HandlerOptions): KubeResponse {
  const { rt, namespace, name, subresource } = t;
  const method = req.method.toUpperCase();
  // An answer written out at once needs no copy of what the store holds.
  const readOnly = opts.serializedAtOnce ? { readOnly: true } : {};
  if (subresource && !rt.subresources.includes(subresource))
    throw new KubeApiStatusError(404, 'NotFound', `the server could not find the requested resource (${rt.resource}/${subresource})`);
  if (!name) {
    if (method === 'GET') {
      const l = list(store, t, req.query, opts.serializedAtOnce === true);
      return {
        status: 200,
        body: wantsTable(req.headers.accept) ? toTable(store, rt, l.items as KubeObject[], l.metadata as Json, req.query.get('includeObject')) : l,
      };
    }
    if (method === 'POST') return { status: 201, body: store.create(rt, namespace, parseBody(req) as KubeObject, { ...writerOf(t, req), ...readOnly }) };
    throw new KubeApiStatusError(405, 'MethodNotAllowed', `${method} is not supported on a collection`);
  }
  const body = method === 'GET' || method === 'DELETE' ? undefined : parseBody(req);
  if (subresource === 'eviction' && method === 'POST') return { status: 201, body: evictPod(store, rt, namespace ?? 'default', name, body as Json) };
  if (subresource === 'binding' && method === 'POST') return { status: 201, body: bindPod(store, rt, namespace ?? 'default', name, body as Json) };
  if (subresource === 'scale') {
    if (method === 'GET') return { status: 200, body: readScale(store, rt, namespace, name) };
    if (method === 'PUT' || method === 'PATCH') return { status: 200, body: writeScale(store, rt, namespace, name, method, req.headers['content-type'], body) };
  }
  const sub = method === 'PUT' || method === 'PATCH' ? { ...writerOf(t, req), ...readOnly } : {};
  switch (method) {
    case 'GET': {
      const o = (opts.serializedAtOnce ? store.peek(rt, namespace, name) : undefined) ?? store.get(rt, namespace, name);
      return {
        status: 200,
        body:
          wantsTable(req.headers.accept) && !subresource
            ? toTable(store, rt, [o], { resourceVersion: o.metadata.resourceVersion }, req.query.get('includeObject'))
            : o,
      };
    }
    case 'PUT':
      return { status: 200, body: store.update(rt, namespace, name, body as KubeObject, sub) };
    case 'PATCH':
      if (isApply(req)) return serverSideApply(store, t, body, sub);
      return { status: 200, body: store.patch(rt, namespace, name, req.headers['content-type'], body, sub) };
    case 'DELETE': {
      if (subresource) break;
      // 200 with the object, whether it went or was only marked (finalizers, graceful pod deletion), as the API server answers.
      const r = store.delete(rt, namespace, name, { ...deleteOptions(req.query, req.body ? parseBody(req) : undefined), ...readOnly });
      return { status: 200, body: r.object };
    }
  }
  throw new KubeApiStatusError(405, 'MethodNotAllowed', `${method} is not supported on ${rt.resource}${subresource ? '/' + subresource : ''}`);
}

function route(store: KubeStore, req: KubeRequest, opts: HandlerOptions): KubeResponse {
  const parts = req.path.split('/').filter(Boolean);
  const ok = (body: unknown): KubeResponse => ({ status: 200, body });
  const missing = (): never => {
    throw new KubeApiStatusError(404, 'NotFound', 'the server could not find the requested resource');
  };
  if (parts[0] === 'version' && parts.length === 1) return ok(SERVER_VERSION);
  if (['healthz', 'readyz', 'livez'].includes(parts[0])) return ok('ok');
  if (parts[0] === 'openapi' && parts[1] === 'v3') {
    if (parts.length === 2) return ok(openApiV3Root(store.registry));
    return ok(openApiV3GroupVersion(store.registry, parts.slice(2).join('/')) ?? missing());
  }
  if (parts[0] === 'api') {
    if (parts.length === 1) return ok(apiVersions(opts.serverAddress ?? '127.0.0.1:443'));
    if (parts[1] !== 'v1') missing();
    if (parts.length === 2) return ok(apiResourceList(store.registry, '', 'v1'));
    const t = resolveTarget(store, '', 'v1', parts.slice(2));
    return t ? resourceRequest(store, t, req, opts) : missing();
  }
  if (parts[0] === 'apis') {
    if (parts.length === 1) return ok(apiGroupList(store.registry));
    const group = parts[1];
    if (parts.length === 2) return ok(apiGroupDoc(store.registry, group) ?? missing());
    if (parts.length === 3) {
      const doc =
        apiResourceList(store.registry, group, parts[2]) ??
        (apiGroupDoc(store.registry, group) ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${parts[2]}`, resources: [] } : undefined);
      return ok(doc ?? missing());
    }
    const t = resolveTarget(store, group, parts[2], parts.slice(3));
    return t ? resourceRequest(store, t, req, opts) : missing();
  }
  return missing();
}

/** The resource a path names (`/api/v1/namespaces/x/pods`, `/apis/karpenter.sh/v1/nodeclaims`…), if any. */
export function targetOfPath(store: KubeStore, path: string): Target | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api' && parts[1] === 'v1' && parts.length > 2) return resolveTarget(store, '', 'v1', parts.slice(2));
  if (parts[0] === 'apis' && parts.length > 3) return resolveTarget(store, parts[1], parts[2], parts.slice(3));
  return undefined;
}

/** Handles one request against the store; never throws (errors become `Status` bodies). */
export function handleKubeRequest(store: KubeStore, req: KubeRequest, opts: HandlerOptions = {}): KubeResponse {
  try {
    if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
      return { status: 401, body: statusBody(401, 'Unauthorized', 'Unauthorized') };
    }
    return route(store, req, opts);
  } catch (err) {
    if (err instanceof KubeApiStatusError) return { status: err.code, body: err.toStatus() };
    return { status: 500, body: statusBody(500, 'InternalError', `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`) };
  }
}
