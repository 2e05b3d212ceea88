/** The fake Kubernetes API server: store + REST handler, served over http (in-process) or https (kubectl). */
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { decoratePdb } from './disruption';
import { handleKubeRequest, targetOfPath, type KubeRequest, type KubeResponse } from './handler';
import { statusBody } from './status';
import { rbacDenial, type RbacRule } from './rbac';
import { WatchHub } from './watch';
import { BUILTIN_RESOURCES, loadCrds, ResourceRegistry, resourceTypeFromCrd } from './resources';
import { KubeStore } from './store';
import { localhostTls, type TlsMaterial } from './tls';
import { KubeApiStatusError } from './status';
import type { ChangeEvent, Json, KubeObject } from './types';

export interface FakeKubeApiOptions {
  /** Milliseconds since the epoch (virtual time in the simulator). Default Date.now. */
  clock?: () => number;
  /** Bearer token required on every request; undefined = no auth. */
  token?: string;
  /** CRD objects to serve, or a directory of CRD YAML. Default: the repository's infra/crds. */
  crds?: Json[] | string;
  /** Namespaces created at start. Default: default, kube-system, kube-public, kube-node-lease. */
  namespaces?: string[];
  /** See KubeStoreOptions.gracefulPodDeletion (default false). */
  gracefulPodDeletion?: boolean;
}

export interface RunningKubeServer {
  /** e.g. http://127.0.0.1:41234 or https://127.0.0.1:41235 */
  url: string;
  /** base64 PEM of the CA (https only), as kubeconfig's certificate-authority-data. */
  caData?: string;
  tls?: TlsMaterial;
  close(): Promise<void>;
}

export class FakeKubeApi {
  readonly store: KubeStore;
  readonly token?: string;
  private readonly servers = new Set<Server>();
  private readonly watches: WatchHub;

  constructor(opts: FakeKubeApiOptions = {}) {
    const registry = new ResourceRegistry(BUILTIN_RESOURCES);
    const crds = Array.isArray(opts.crds) ? opts.crds : loadCrds(opts.crds);
    for (const crd of crds) registry.add(resourceTypeFromCrd(crd));
    this.store = new KubeStore({ clock: opts.clock, registry, gracefulPodDeletion: opts.gracefulPodDeletion });
    this.token = opts.token;
    this.store.addReadDecorator('policy', 'poddisruptionbudgets', decoratePdb);
    this.watches = new WatchHub(this.store, (ms, fn) => this.holdTimer(ms, fn));
    const crdType = registry.get('apiextensions.k8s.io', 'customresourcedefinitions');
    for (const crd of crds) if (crdType) this.store.create(crdType, undefined, structuredClone(crd) as never);
    this.store.onChange((e) => {
      if (e.resource.resource === 'customresourcedefinitions' && e.type !== 'DELETED') registry.add(resourceTypeFromCrd(e.object as Json));
    });
    const nsType = registry.get('', 'namespaces');
    for (const ns of opts.namespaces ?? ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      if (nsType && !this.store.tryGet(nsType, undefined, ns))
        this.store.create(nsType, undefined, { metadata: { name: ns }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    }
    // The API server's own Service, as every cluster has it (`kubectl get all` shows it).
    const svcType = registry.get('', 'services');
    if (svcType && nsType && this.store.tryGet(nsType, undefined, 'default') && !this.store.tryGet(svcType, 'default', 'kubernetes'))
      this.store.create(svcType, 'default', {
        metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          type: 'ClusterIP',
          clusterIP: '10.100.0.1',
          clusterIPs: ['10.100.0.1'],
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }],
        },
      });
  }

  /** Ends every open watch stream; clients must watch again (from their last resourceVersion). */
  dropWatches(): number {
    return this.watches.dropAll();
  }

  /** Compacts the watch history (as etcd does every 5 minutes): a watch resuming from an older resourceVersion gets 410 Gone. */
  compactWatchHistory(): void {
    this.watches.compact();
  }

  /** Events written so far to each open watch of nodewright's controller (by watch id). */
  watchEventsSent(): ReadonlyMap<string, number> {
    return this.watches.sentByWatch;
  }

  /** Subscribes to every write (ADDED / MODIFIED / DELETED); returns the unsubscribe function. */
  onChange(fn: (e: ChangeEvent) => void): () => void {
    return this.store.onChange(fn);
  }

  /** Creates the object, or replaces it (keeping uid and status) when it exists: what a scenario's `apply` does. */
  apply(obj: KubeObject): KubeObject {
    if (!obj?.apiVersion || !obj.kind || !obj.metadata?.name) throw new KubeApiStatusError(422, 'Invalid', 'apply needs apiVersion, kind and metadata.name');
    const rt = this.store.typeOf(obj.apiVersion, obj.kind);
    const ns = rt.namespaced ? (obj.metadata.namespace ?? 'default') : undefined;
    const existing = this.store.tryGet(rt, ns, obj.metadata.name);
    const manager = { manager: 'kubectl-client-side-apply' };
    if (!existing) return this.store.create(rt, ns, obj, manager);
    const next = structuredClone(obj);
    next.metadata = { ...next.metadata, resourceVersion: existing.metadata.resourceVersion };
    return this.store.update(rt, ns, obj.metadata.name, next, manager);
  }

  /** Deletes by apiVersion/kind/name (finalizers honoured); false when it was not there. */
  remove(apiVersion: string, kind: string, name: string, namespace?: string): boolean {
    const rt = this.store.typeOf(apiVersion, kind);
    const ns = rt.namespaced ? (namespace ?? 'default') : undefined;
    if (!this.store.tryGet(rt, ns, name)) return false;
    this.store.delete(rt, ns, name);
    return true;
  }

  /** One request, no transport (useful for tests of the REST semantics themselves). */
  /** One request; `serializedAtOnce`: the answer is written out before the store changes (served objects are not copied). */
  handle(req: KubeRequest, serverAddress?: string, opts: { serializedAtOnce?: boolean } = {}): KubeResponse {
    return handleKubeRequest(this.store, req, { token: this.token, serverAddress, ...opts });
  }

  /** Serves on 127.0.0.1 on an ephemeral port (or `port`); `tls: true` for HTTPS with a fresh localhost CA. */
  async listen(opts: { tls?: boolean; port?: number; tlsMaterial?: TlsMaterial } = {}): Promise<RunningKubeServer> {
    const material = opts.tls ? (opts.tlsMaterial ?? localhostTls()) : undefined;
    const handler = (req: IncomingMessage, res: ServerResponse) => this.serve(req, res, server);
    const server: Server = material ? createHttpsServer({ cert: material.cert, key: material.key }, handler) : createHttpServer(handler);
    // Clients keep connections alive between bursts of calls (a simulation runs an hour in about a minute);
    // Node's 5 s default would make every burst pay new TLS handshakes.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    this.servers.add(server);
    const port = (server.address() as AddressInfo).port;
    return {
      url: `${material ? 'https' : 'http'}://127.0.0.1:${port}`,
      caData: material ? Buffer.from(material.ca).toString('base64') : undefined,
      tls: material,
      close: () =>
        new Promise<void>((resolve) => {
          this.servers.delete(server);
          server.closeAllConnections?.();
          server.close(() => resolve());
        }),
    };
  }

  /**
   * Fault injection for every request (shared/sim/faults.ts): a status to answer instead, now or after
   * `delayMs` (Infinity: never — the request hangs until the client gives up).
   */
  faultHook?: () => InjectedAnswer | undefined;
  /** RBAC rules enforced for the functions' identity (shared/sim/kube/rbac.ts); undefined = allow everything. */
  rbacRules?: RbacRule[];
  /** Told when a request is held (the client's local port), so the simulator lets time move meanwhile. */
  onHold?: (clientPort: number) => void;
  /** Told when an answer is written (the client's local port): a request held until then holds time again until the client has it. */
  onAnswer?: (clientPort: number) => void;
  /**
   * Pacing of answers (the simulator's cost model, shared/sim/runtime/kube-cost.ts): given an answer about to be
   * written, returns true when it takes the answer over (it calls `answer` later); the request is then held.
   */
  pace?: (a: { clientPort: number; method: string; url: string; requestBytes: number; responseBytes: number }, answer: () => void) => boolean;
  /** Runs `fn` after `ms` of the server's time (virtual in the simulator); returns a cancel. */
  holdTimer: (ms: number, fn: () => void) => () => void = (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  };

  private answerFault(req: IncomingMessage, res: ServerResponse, injected: InjectedAnswer): void {
    const answer = () => {
      if (res.writableEnded || req.socket.destroyed) return;
      if (req.socket.remotePort !== undefined) this.onAnswer?.(req.socket.remotePort);
      const status = injected.status ?? 504;
      const reason = status === 429 ? 'TooManyRequests' : status === 504 ? 'Timeout' : 'InternalError';
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify(
          statusBody(status, reason, status === 504 ? 'the server was unable to return a response in the time allotted (injected fault)' : 'injected fault'),
        ),
      );
    };
    if (!injected.delayMs) return answer();
    if (req.socket.remotePort !== undefined) this.onHold?.(req.socket.remotePort);
    if (!Number.isFinite(injected.delayMs)) return; // held until the client closes the connection
    const cancel = this.holdTimer(injected.delayMs, answer);
    req.socket.once('close', cancel);
  }

  private serveWatch(url: URL, headers: Record<string, string | undefined>, res: ServerResponse): boolean {
    if (this.token !== undefined && headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(statusBody(401, 'Unauthorized', 'Unauthorized')));
      return true;
    }
    const target = targetOfPath(this.store, url.pathname);
    if (!target || target.subresource) return false;
    try {
      this.watches.open(target, url.searchParams, headers.accept, res, headers['user-agent']);
    } catch {
      return false;
    }
    return true;
  }

  private serve(req: IncomingMessage, res: ServerResponse, server: Server): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const injected = this.faultHook?.();
      if (injected !== undefined) return this.answerFault(req, res, injected);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
      const denied = this.rbacRules
        ? rbacDenial(this.rbacRules, { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, authorization: headers.authorization })
        : undefined;
      if (denied) {
        res.writeHead(denied.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(denied.body));
        return;
      }
      const watch = url.searchParams.get('watch');
      if ((req.method ?? 'GET') === 'GET' && (watch === 'true' || watch === '1') && this.serveWatch(url, headers, res)) return;
      const addr = server.address() as AddressInfo | null;
      const out = this.handle(
        { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body: Buffer.concat(chunks).toString('utf8') },
        addr ? `127.0.0.1:${addr.port}` : undefined,
        { serializedAtOnce: true },
      );
      const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
      const port = req.socket.remotePort;
      const write = () => {
        if (res.writableEnded || req.socket.destroyed) return;
        if (port !== undefined) this.onAnswer?.(port);
        res.writeHead(out.status, {
          'Content-Type': typeof out.body === 'string' ? 'text/plain' : 'application/json',
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
      };
      const paced = { clientPort: port ?? 0, method: req.method ?? 'GET', url: req.url ?? '/', requestBytes: chunks.reduce((n, c) => n + c.length, 0) };
      if (port !== undefined && this.pace?.({ ...paced, responseBytes: Buffer.byteLength(text) }, write)) return this.onHold?.(port);
      write();
    });
  }
}

/** What an injected fault makes the server answer (shared/sim/faults.ts). */
export interface InjectedAnswer {
  status?: number;
  /** Hold the request this long first (ms); Infinity holds it until the client gives up. */
  delayMs?: number;
}

export function createFakeKubeApi(opts: FakeKubeApiOptions = {}): FakeKubeApi {
  return new FakeKubeApi(opts);
}

/**
 * Interactive mode in one call: HTTPS on 127.0.0.1 (ephemeral port unless `port`) and a kubeconfig at
 * `kubeconfigPath` that kubectl can use at once (`KUBECONFIG=<path> kubectl get nodes`).
 */
export async function serveForKubectl(
  api: FakeKubeApi,
  opts: { kubeconfigPath: string; port?: number },
): Promise<RunningKubeServer & { kubeconfigPath: string }> {
  const server = await api.listen({ tls: true, port: opts.port });
  writeKubeconfig(opts.kubeconfigPath, { server: server.url, caData: server.caData, token: api.token });
  return { ...server, kubeconfigPath: opts.kubeconfigPath };
}

/** Writes a kubeconfig for kubectl: one cluster, one token user, one current context. */
export function writeKubeconfig(file: string, opts: { server: string; caData?: string; token?: string; name?: string; namespace?: string }): void {
  const name = opts.name ?? 'nodewright-sim';
  const cluster: Json = { server: opts.server };
  if (opts.caData) cluster['certificate-authority-data'] = opts.caData;
  else if (opts.server.startsWith('https:')) cluster['insecure-skip-tls-verify'] = true;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: opts.token ? { token: opts.token } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: opts.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  };
  writeFileSync(file, stringify(doc), { mode: 0o600 });
}
