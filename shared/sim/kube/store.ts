/**
 * In-memory object store of the fake API server: objects keyed by (group/resource, namespace, name) with
 * resourceVersion, uid, creationTimestamp (from an injected clock), generation, finalizers and deletionTimestamp.
 * LIST with selectors and paging is list.ts; the rules a PUT or PATCH is held to are write-rules.ts.
 */
import { Bucket } from './bucket';
import { ExpiryQueue } from './expiry';
import { recordManagedFields, type Writer } from './managed-fields';
import { validateAgainstSchema } from './schema';
import { listObjects, type ListOptions, type ListResult } from './list';
import { deterministicUid, generatedNameSuffix, validateName } from './naming';
import { applyPatch } from './patch';
import { checkQuantities } from './quantities';
import { ResourceRegistry } from './resources';
import { KubeApiStatusError, alreadyExists, badRequest, conflict, invalid, notFound } from './status';
import { apiVersionOf, type ChangeEvent, type KubeObject, type ResourceType } from './types';
import { applyStatusRule, carryOverMetadata, checkResourceVersion, clone } from './write-rules';

export type { ListOptions, ListResult } from './list';

export interface KubeStoreOptions {
  /** Milliseconds since the epoch; the simulator passes its virtual clock. Default Date.now. */
  clock?: () => number;
  registry?: ResourceRegistry;
  /**
   * When true, deleting a pod bound to a node with a grace period > 0 only marks it (deletionTimestamp +
   * deletionGracePeriodSeconds), as the API server does; a simulated kubelet removes it later with
   * gracePeriodSeconds 0. Default false: pods without finalizers disappear at once.
   */
  gracefulPodDeletion?: boolean;
  /** kube-apiserver's `--event-ttl`: an Event goes this long after its last write. Default 3600 (1 h). */
  eventTtlSeconds?: number;
  /** The field manager of writes that name none (the simulator's own). Default "nodewright-sim". */
  defaultManager?: string;
}

/** Who writes (the field manager recorded in managedFields); the status subresource when only status changes. */
export interface WriteOptions {
  manager?: string;
  subresource?: 'status';
  /** Server-side apply: the configuration applied (its fields are the manager's, operation Apply). */
  applied?: KubeObject;
  /**
   * The caller only reads the result, before the next write (an answer serialized at once, a controller's own
   * write): the stored object is returned rather than a copy (a type with a read decorator is still copied).
   */
  readOnly?: boolean;
}

type Decorator = (obj: KubeObject, store: KubeStore) => KubeObject;

export class KubeStore {
  readonly registry: ResourceRegistry;
  private readonly clock: () => number;
  private readonly graceful: boolean;
  private readonly data = new Map<string, Bucket>();
  /** The bucket of each ResourceType object met (a type registered again is a new object: looked up by name once). */
  private readonly buckets = new WeakMap<ResourceType, Bucket>();
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  /** Figures kept from the writes (onChangeFirst): told of each write before any listener. */
  private readonly indexes: ((e: ChangeEvent) => void)[] = [];
  private readonly decorators = new Map<string, Decorator>();
  private readonly eventTtlMs: number;
  private readonly defaultManager: string;
  /** Event writes in time order: an Event whose last write is older than the TTL is deleted, costing only the expired. */
  private readonly eventExpiry = new ExpiryQueue();
  /** Running pods evicted through the API (POST pods/{name}/eviction), per node they ran on. */
  readonly evictionsByNode = new Map<string, number>();
  private rv = 0;
  private uids = 0;
  private names = 0;

  constructor(opts: KubeStoreOptions = {}) {
    this.clock = opts.clock ?? (() => Date.now());
    this.graceful = opts.gracefulPodDeletion ?? false;
    this.registry = opts.registry ?? new ResourceRegistry();
    this.eventTtlMs = (opts.eventTtlSeconds ?? 3600) * 1000;
    this.defaultManager = opts.defaultManager ?? 'nodewright-sim';
  }

  /** Subscribes to every write; returns the unsubscribe function. Called synchronously after the write. */
  onChange(fn: (e: ChangeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Keeps a figure up to date with every write, for the life of the store: `fn` is called before any onChange
   * listener, so a listener that reads the figure sees the write it is told of counted.
   */
  onChangeFirst(fn: (e: ChangeEvent) => void): void {
    this.indexes.push(fn);
  }

  /** Computes fields on read (e.g. PodDisruptionBudget status). */
  addReadDecorator(group: string, resource: string, fn: Decorator): void {
    this.decorators.set(`${group}/${resource}`, fn);
  }

  /** Milliseconds since the epoch on the store's clock. */
  now(): number {
    return this.clock();
  }

  /** Current time as the API writes it (RFC 3339, whole seconds). */
  timestamp(): string {
    return new Date(this.clock()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  resourceVersion(): string {
    return String(this.rv);
  }

  /** The resource type for an object's apiVersion and kind. */
  typeOf(apiVersion: string, kind: string): ResourceType {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const rt = this.registry.byKind(kind, group);
    if (!rt || rt.version !== version) throw new KubeApiStatusError(404, 'NotFound', `no matches for kind "${kind}" in version "${apiVersion}"`);
    return rt;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): KubeObject {
    this.expireEvents(rt);
    const o = this.bucket(rt).get(this.key(rt, namespace, name));
    if (!o) throw notFound(rt.group, rt.resource, name);
    return this.decorate(rt, clone(o));
  }

  tryGet(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    this.expireEvents(rt);
    const o = this.bucket(rt).get(this.key(rt, namespace, name));
    return o ? this.decorate(rt, clone(o)) : undefined;
  }

  /**
   * LIST: a page of copies. `stored: true` serves the stored objects themselves where nothing is computed on read
   * (no copy): for an answer serialized before the next write, never changed, never kept.
   */
  list(rt: ResourceType, opts: ListOptions = {}, { stored = false }: { stored?: boolean } = {}): ListResult {
    this.expireEvents(rt);
    const decorated = this.decorators.has(`${rt.group}/${rt.resource}`);
    const read = decorated ? (o: KubeObject) => this.decorate(rt, clone(o)) : stored ? (o: KubeObject) => o : clone;
    return listObjects(this.bucket(rt), rt, opts, read, decorated, this.resourceVersion());
  }

  /**
   * The stored objects of a type (in a namespace), in LIST order, without copying them: for the simulator's
   * own controllers and figures, which only read. Never mutate what this returns. A type with computed fields
   * (read decorators) is served as LIST serves it, unless `raw` (the stored objects, without the computed fields).
   */
  scan(rt: ResourceType, namespace?: string, { raw = false }: { raw?: boolean } = {}): readonly KubeObject[] {
    if (!raw && this.decorators.has(`${rt.group}/${rt.resource}`)) return this.list(rt, { namespace }).items;
    return this.bucket(rt).values(rt.namespaced && namespace ? `${namespace}/` : '');
  }

  /**
   * The stored objects of a type (in a namespace) whose field (a path, e.g. ['spec', 'nodeName']) reads `value`
   * ('' when missing, as a field selector reads it), in LIST order, without copying them (read only, as scan). The
   * field is indexed from the first question on. Not for a type with computed fields.
   */
  scanWhere(rt: ResourceType, path: string[], value: string, namespace?: string): readonly KubeObject[] {
    const bucket = this.bucket(rt);
    const prefix = rt.namespaced && namespace ? `${namespace}/` : '';
    const out: KubeObject[] = [];
    for (const k of bucket.keysWithField(path, value)) if (k.startsWith(prefix)) out.push(bucket.get(k)!);
    return out;
  }

  /** The values a field (as scanWhere) reads among the stored objects of a type, in no order. */
  fieldValues(rt: ResourceType, path: string[]): string[] {
    return this.bucket(rt).fieldValues(path);
  }

  /** The stored object, or undefined, without copying it (read only, as scan). */
  peek(rt: ResourceType, namespace: string | undefined, name: string): Readonly<KubeObject> | undefined {
    if (this.decorators.has(`${rt.group}/${rt.resource}`)) return this.tryGet(rt, namespace, name);
    return this.bucket(rt).get(this.key(rt, namespace, name));
  }

  create(rt: ResourceType, namespace: string | undefined, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    this.expireEvents();
    if (!input || typeof input !== 'object' || typeof input.metadata !== 'object' || input.metadata === null) {
      throw invalid(rt.kind, '', 'metadata', 'Required value');
    }
    const obj = clone(input);
    const meta = obj.metadata;
    if (rt.namespaced) {
      const ns = namespace ?? meta.namespace ?? 'default';
      if (meta.namespace && meta.namespace !== ns) throw badRequest(`the namespace of the provided object does not match the namespace sent on the request`);
      meta.namespace = ns;
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${this.suffix()}`;
    validateName(rt, meta.name);
    const name = meta.name as string;
    const key = this.key(rt, meta.namespace, name);
    if (this.bucket(rt).has(key)) throw alreadyExists(rt.group, rt.resource, name);
    if (rt.namespaced && meta.namespace) this.ensureNamespace(meta.namespace);
    obj.apiVersion = apiVersionOf(rt);
    obj.kind = rt.kind;
    meta.uid = this.uid();
    meta.creationTimestamp = this.timestamp();
    meta.generation = 1;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (rt.subresources.includes('status') && this.isCustom(rt)) delete obj.status;
    validateAgainstSchema(rt, obj);
    checkQuantities(rt, obj);
    recordManagedFields(rt, undefined, obj, this.writer(opts), meta.creationTimestamp);
    if (rt.resource === 'pods') obj.status = { phase: 'Pending', ...(obj.status ?? {}) };
    meta.resourceVersion = this.nextRv();
    this.bucket(rt).set(key, obj);
    this.expireLater(rt, key, meta.resourceVersion);
    this.emit({ type: 'ADDED', resource: rt, object: obj });
    return this.result(rt, obj, opts.readOnly);
  }

  /** PUT. `subresource: 'status'` changes only status; otherwise status is kept when the type has a status subresource. */
  update(rt: ResourceType, namespace: string | undefined, name: string, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    this.expireEvents();
    const key = this.key(rt, namespace, name);
    const old = this.bucket(rt).get(key);
    if (!old) throw notFound(rt.group, rt.resource, name);
    if (!input || typeof input !== 'object' || typeof input.metadata !== 'object') throw invalid(rt.kind, name, 'metadata', 'Required value');
    if (input.metadata.name !== undefined && input.metadata.name !== name)
      throw badRequest(`the name of the object (${String(input.metadata.name)}) does not match the name on the URL (${name})`);
    const rv = input.metadata.resourceVersion;
    checkResourceVersion(rt, name, old, rv === '' ? undefined : rv); // PUT: an empty resourceVersion is no precondition
    // The status subresource reads only the status sent: the rest of the input is not copied.
    const sent = opts.subresource === 'status' ? { metadata: input.metadata, status: clone(input.status) } : clone(input);
    return this.commit(rt, key, old, applyStatusRule(rt, old, sent, opts.subresource), this.writer(opts), opts.readOnly);
  }

  /** PATCH with merge, strategic-merge (as merge) or JSON patch, on the object or its status. */
  patch(rt: ResourceType, namespace: string | undefined, name: string, contentType: string | undefined, body: unknown, opts: WriteOptions = {}): KubeObject {
    this.expireEvents();
    const key = this.key(rt, namespace, name);
    const old = this.bucket(rt).get(key);
    if (!old) throw notFound(rt.group, rt.resource, name);
    const patched = applyPatch(contentType, clone(old), body) as KubeObject;
    if (!patched || typeof patched !== 'object' || typeof patched.metadata !== 'object') throw invalid(rt.kind, name, 'metadata', 'Required value');
    checkResourceVersion(rt, name, old, patched.metadata.resourceVersion);
    return this.commit(rt, key, old, applyStatusRule(rt, old, patched, opts.subresource), this.writer(opts), opts.readOnly);
  }

  /**
   * DELETE. With finalizers the object is only marked (deletionTimestamp); it goes when the last one is removed.
   * Returns the object as it was deleted or marked, and whether it is gone.
   */
  delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string }; readOnly?: boolean } = {},
  ): { object: KubeObject; gone: boolean } {
    this.expireEvents();
    const key = this.key(rt, namespace, name);
    const old = this.bucket(rt).get(key);
    if (!old) throw notFound(rt.group, rt.resource, name);
    if (opts.preconditions?.uid && opts.preconditions.uid !== old.metadata.uid)
      throw conflict(
        rt.group,
        rt.resource,
        name,
        `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    if (opts.preconditions?.resourceVersion && opts.preconditions.resourceVersion !== old.metadata.resourceVersion)
      throw conflict(rt.group, rt.resource, name, 'Precondition failed: resourceVersion');
    const grace = opts.gracePeriodSeconds ?? Number(old.spec?.terminationGracePeriodSeconds ?? 30);
    const gracefulPod = this.graceful && rt.group === '' && rt.resource === 'pods' && Boolean(old.spec?.nodeName) && grace > 0;
    if ((old.metadata.finalizers ?? []).length > 0 || gracefulPod) {
      if (old.metadata.deletionTimestamp) return { object: this.result(rt, old, opts.readOnly), gone: false };
      if (gracefulPod) opts = { ...opts, gracePeriodSeconds: grace };
      const next = clone(old);
      next.metadata.deletionTimestamp = this.timestamp();
      next.metadata.deletionGracePeriodSeconds = opts.gracePeriodSeconds ?? 0;
      next.metadata.resourceVersion = this.nextRv();
      this.bucket(rt).set(key, next);
      this.emit({ type: 'MODIFIED', resource: rt, object: next, old });
      return { object: this.result(rt, next, opts.readOnly), gone: false };
    }
    return { object: this.remove(rt, key, old, opts.readOnly), gone: true };
  }

  private commit(rt: ResourceType, key: string, old: KubeObject, next: KubeObject, writer: Writer, readOnly?: boolean): KubeObject {
    carryOverMetadata(rt, old, next);
    const meta = next.metadata;
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0) return this.remove(rt, key, next, readOnly);
    checkQuantities(rt, next);
    recordManagedFields(rt, old, next, writer, this.timestamp());
    meta.resourceVersion = this.nextRv();
    this.bucket(rt).set(key, next);
    this.expireLater(rt, key, meta.resourceVersion);
    this.emit({ type: 'MODIFIED', resource: rt, object: next, old });
    return this.result(rt, next, readOnly);
  }

  private remove(rt: ResourceType, key: string, obj: KubeObject, readOnly?: boolean): KubeObject {
    const old = this.bucket(rt).get(key);
    this.bucket(rt).delete(key);
    // Read only, as every object a listener is given: the deleted object with its last resourceVersion.
    const gone = { ...obj, metadata: { ...obj.metadata, resourceVersion: this.nextRv() } };
    this.emit({ type: 'DELETED', resource: rt, object: gone, old });
    return readOnly ? gone : clone(gone);
  }

  /** What a write returns: a copy, or the stored object itself for a caller that only reads it at once. */
  private result(rt: ResourceType, stored: KubeObject, readOnly: boolean | undefined): KubeObject {
    return readOnly && !this.decorators.has(`${rt.group}/${rt.resource}`) ? stored : this.decorate(rt, clone(stored));
  }

  private writer(opts: WriteOptions): Writer {
    return { manager: opts.manager ?? this.defaultManager, subresource: opts.subresource, applied: opts.applied };
  }

  private static isEvent = (rt: ResourceType): boolean => rt.group === '' && rt.resource === 'events';

  /** Every write of an Event restarts its TTL (etcd's lease on the key). */
  private expireLater(rt: ResourceType, key: string, rv: string): void {
    if (KubeStore.isEvent(rt)) this.eventExpiry.push(this.clock() + this.eventTtlMs, key, rv);
  }

  /** Deletes the Events whose TTL has run out (before any write, and before a read of Events). */
  private expireEvents(reading?: ResourceType): void {
    if (reading && !KubeStore.isEvent(reading)) return;
    const rt = this.registry.get('', 'events');
    if (!rt) return;
    for (const { key, rv } of this.eventExpiry.due(this.clock())) {
      const o = this.bucket(rt).get(key);
      if (o && o.metadata.resourceVersion === rv) this.remove(rt, key, o);
    }
  }

  private ensureNamespace(ns: string): void {
    const rt = this.registry.get('', 'namespaces');
    if (!rt || this.bucket(rt).has(ns)) return;
    this.create(rt, undefined, { metadata: { name: ns }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }

  private isCustom(rt: ResourceType): boolean {
    return rt.group.includes('.') && !rt.group.endsWith('k8s.io');
  }

  private decorate(rt: ResourceType, o: KubeObject): KubeObject {
    const d = this.decorators.get(`${rt.group}/${rt.resource}`);
    return d ? d(o, this) : o;
  }

  private emit(e: ChangeEvent): void {
    for (const fn of this.indexes) fn(e);
    const errors: unknown[] = [];
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
  }

  private bucket(rt: ResourceType): Bucket {
    let b = this.buckets.get(rt);
    if (b) return b;
    const k = `${rt.group}/${rt.resource}`;
    b = this.data.get(k);
    if (!b) {
      b = new Bucket();
      this.data.set(k, b);
    }
    this.buckets.set(rt, b);
    return b;
  }

  private key(rt: ResourceType, namespace: string | undefined, name: string): string {
    return rt.namespaced ? `${namespace ?? 'default'}/${name}` : name;
  }

  private nextRv(): string {
    this.rv += 1;
    return String(this.rv);
  }

  private uid(): string {
    this.uids += 1;
    return deterministicUid(this.uids);
  }

  private suffix(): string {
    this.names += 1;
    return generatedNameSuffix(this.names);
  }
}
