/**
 * `metadata.managedFields` as kube-apiserver records them (server-side field management): one entry per
 * (manager, operation, subresource) with the fields that writer set, in the FieldsV1 format (`f:<field>`,
 * `k:{<list item key>}`, `v:<set value>`, `.` for the node itself). A create owns every field written; an update
 * owns what it changed (taken over from any other manager) on top of what it owned before; a removed field is
 * nobody's. Ownership conflicts are not modelled (an Apply always wins). Lists are keyed as the built-in types
 * key them (containers by name, conditions by type…); other lists of objects are atomic.
 */
import { invalid } from './status';
import { apiVersionOf, type Json, type KubeObject, type ResourceType } from './types';

/** A FieldsV1 set: nested `f:` / `k:` / `v:` / `.` keys, `{}` at a leaf. */
type Fields = { [k: string]: Fields };

export interface Writer {
  /** The field manager: `?fieldManager=`, else the User-Agent up to its first '/'. */
  manager: string;
  subresource?: 'status';
  /** Server-side apply (operation Apply): the configuration applied, whose fields the manager then owns (and only those). */
  applied?: KubeObject;
}

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Fields;
  subresource?: string;
}

/** List fields keyed by these item fields (their patchMergeKey / listMapKeys in the built-in types). */
const LIST_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  conditions: ['type'],
  addresses: ['type'],
  ownerReferences: ['uid'],
  imagePullSecrets: ['name'],
  podIPs: ['ip'],
  hostIPs: ['ip'],
  resourceClaims: ['name'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
};
/** Lists of scalars kept as sets (`v:`): the rest are atomic. */
const SET_LISTS = new Set(['finalizers']);
/** Maps of free keys: the map itself is a member too (`.`). */
const FREE_MAPS = new Set(['labels', 'annotations', 'nodeSelector', 'limits', 'requests', 'capacity', 'allocatable', 'matchLabels', 'data']);
/** Metadata the server owns: never in a manager's set. */
const SERVER_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The key of a list item (`k:{...}`), or undefined when the list is not keyed that way. */
function itemKey(field: string, item: unknown): string | undefined {
  if (!isMap(item)) return undefined;
  if (field === 'ports') {
    if (item.containerPort !== undefined) return `k:${JSON.stringify({ containerPort: item.containerPort, protocol: item.protocol ?? 'TCP' })}`;
    if (item.port !== undefined) return `k:${JSON.stringify({ port: item.port, protocol: item.protocol ?? 'TCP' })}`;
    return undefined;
  }
  const keys = LIST_KEYS[field];
  if (!keys || keys.some((k) => item[k] === undefined)) return undefined;
  return `k:${JSON.stringify(Object.fromEntries(keys.map((k) => [k, item[k]])))}`;
}

/** Items of a keyed list by key; undefined when the list is atomic (any item without its key). */
function keyedItems(field: string, list: unknown[]): Map<string, unknown> | undefined {
  if (SET_LISTS.has(field)) return new Map(list.map((v) => [`v:${JSON.stringify(v)}`, v]));
  const out = new Map<string, unknown>();
  for (const item of list) {
    const k = itemKey(field, item);
    if (k === undefined) return undefined;
    out.set(k, item);
  }
  return out;
}

/** Every field of `value` (the value of `field`) as a set. */
function fieldsOf(field: string, value: unknown): Fields {
  if (isMap(value)) {
    const out: Fields = FREE_MAPS.has(field) ? { '.': {} } : {};
    for (const [k, v] of Object.entries(value)) out[`f:${k}`] = fieldsOf(k, v);
    return out;
  }
  if (Array.isArray(value)) {
    const items = keyedItems(field, value);
    if (!items) return {};
    const out: Fields = {};
    for (const [k, v] of items) out[k] = k.startsWith('v:') ? {} : { '.': {}, ...fieldsOf('', v) };
    return out;
  }
  return {};
}

/** What a write changed from `a` to `b` (both the value of `field`): fields set or changed into `set`, removed ones into `removed`. */
function diff(field: string, a: unknown, b: unknown, set: Fields, removed: string[][], path: string[]): void {
  // A write shares what it did not change with the stored object (the store copies only what changed).
  if (a === b) return;
  if (isMap(a) && isMap(b)) {
    for (const [k, v] of Object.entries(b)) {
      const child = `f:${k}`;
      if (!(k in a)) set[child] = fieldsOf(k, v);
      else {
        const sub: Fields = {};
        diff(k, a[k], v, sub, removed, [...path, child]);
        if (Object.keys(sub).length > 0) set[child] = sub;
        else if (!structured(k, a[k], v) && a[k] !== v && (typeof v !== 'object' || JSON.stringify(a[k]) !== JSON.stringify(v))) set[child] = fieldsOf(k, v);
      }
    }
    for (const k of Object.keys(a)) if (!(k in b)) removed.push([...path, `f:${k}`]);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const [ia, ib] = [keyedItems(field, a), keyedItems(field, b)];
    if (ia && ib) {
      for (const [k, v] of ib) {
        if (!ia.has(k)) set[k] = k.startsWith('v:') ? {} : { '.': {}, ...fieldsOf('', v) };
        else if (!k.startsWith('v:')) {
          const sub: Fields = {};
          diff('', ia.get(k), v, sub, removed, [...path, k]);
          if (Object.keys(sub).length > 0) set[k] = sub;
        }
      }
      for (const k of ia.keys()) if (!ib.has(k)) removed.push([...path, k]);
    }
  }
}

/** Both maps, or both keyed lists: a change inside shows as changed children, not as the node itself. */
const structured = (field: string, a: unknown, b: unknown): boolean =>
  (isMap(a) && isMap(b)) || (Array.isArray(a) && Array.isArray(b) && keyedItems(field, a) !== undefined && keyedItems(field, b) !== undefined);

function merge(into: Fields, from: Fields): Fields {
  for (const [k, v] of Object.entries(from)) into[k] = into[k] ? merge(into[k], v) : structuredClone(v);
  return into;
}

/** Removes from `tree` every leaf of `other` (and whatever `tree` has below it); empty nodes go too. */
function subtract(tree: Fields, other: Fields): void {
  for (const [k, v] of Object.entries(other)) {
    const t = tree[k];
    if (!t) continue;
    if (Object.keys(v).length === 0 || k === '.') {
      delete tree[k];
      continue;
    }
    const wasLeaf = Object.keys(t).length === 0;
    subtract(t, v);
    if (!wasLeaf && Object.keys(t).length === 0) delete tree[k];
  }
}

function removePath(tree: Fields, path: string[]): void {
  const [head, ...rest] = path;
  const t = tree[head];
  if (!t) return;
  if (rest.length === 0) delete tree[head];
  else {
    removePath(t, rest);
    if (Object.keys(t).length === 0 || (Object.keys(t).length === 1 && '.' in t)) delete tree[head];
  }
}

/** The part of an object a write may own: status alone on the status subresource, else all but status (when status is its own subresource) and server metadata. */
function writable(rt: ResourceType, o: KubeObject | undefined, subresource: 'status' | undefined, creating = false): Json {
  if (!o) return {};
  if (subresource === 'status') return o.status === undefined ? {} : { status: o.status };
  const { apiVersion: _a, kind: _k, status, metadata, ...rest } = o;
  const meta = Object.fromEntries(Object.entries(metadata ?? {}).filter(([k]) => !SERVER_META.has(k)));
  return {
    ...(Object.keys(meta).length ? { metadata: meta } : {}),
    ...rest,
    // A create writes the status it carries (a Node's kubelet registers with one); later writes reach it only through its subresource.
    ...(status !== undefined && (creating || !rt.subresources.includes('status')) ? { status } : {}),
  };
}

/** The managedFields the write carries: `[{}]` strips them all, `[]` or none keeps the stored ones, valid entries replace them. */
function baseline(sent: unknown, stored: Entry[] | undefined): Entry[] | 'strip' {
  if (!Array.isArray(sent) || sent.length === 0) return structuredClone(stored ?? []);
  if (sent.length === 1 && isMap(sent[0]) && Object.keys(sent[0]).length === 0) return 'strip';
  if (sent.every((e) => isMap(e) && typeof e.manager === 'string' && isMap(e.fieldsV1))) return structuredClone(sent as Entry[]);
  return structuredClone(stored ?? []);
}

const operationOf = (w: Writer) => (w.applied ? 'Apply' : 'Update');
const sameEntry = (e: Entry, w: Writer) => e.manager === w.manager && e.operation === operationOf(w) && (e.subresource ?? '') === (w.subresource ?? '');
const order = (a: Entry, b: Entry) =>
  a.operation.localeCompare(b.operation) ||
  a.time.localeCompare(b.time) ||
  a.manager.localeCompare(b.manager) ||
  (a.subresource ?? '').localeCompare(b.subresource ?? '');

/** Checks a `?fieldManager=` value as the API server does (at most 128 printable characters). */
export function checkFieldManager(kind: string, name: string, manager: string): void {
  if (manager.length > 128 || !/^[\x20-\x7e]*$/.test(manager))
    throw invalid(kind, name, 'metadata.managedFields[0].manager', 'Too long or not printable: field manager');
}

/** The field manager the API server derives from a User-Agent: the part before the first '/'. */
export const managerFromUserAgent = (userAgent: string | undefined): string => (userAgent ?? '').split('/')[0].trim() || 'unknown';

/** Records the write of `next` (over `old`, undefined on create) in `next.metadata.managedFields`. */
export function recordManagedFields(rt: ResourceType, old: KubeObject | undefined, next: KubeObject, w: Writer, time: string): void {
  const base = baseline(next.metadata.managedFields, old?.metadata.managedFields as Entry[] | undefined);
  if (base === 'strip') {
    delete next.metadata.managedFields;
    return;
  }
  const set: Fields = {};
  const removed: string[][] = [];
  if (w.applied) merge(set, fieldsOf('', writable(rt, w.applied, w.subresource)));
  else if (!old) merge(set, fieldsOf('', writable(rt, next, w.subresource, true)));
  else diff('', writable(rt, old, w.subresource), writable(rt, next, w.subresource), set, removed, []);
  const entries = base.filter((e) => !sameEntry(e, w));
  let mine = base.find((e) => sameEntry(e, w));
  for (const e of entries) {
    subtract(e.fieldsV1, set);
    for (const p of removed) removePath(e.fieldsV1, p);
  }
  const before = JSON.stringify(mine?.fieldsV1 ?? {});
  const fields = w.applied ? set : merge(mine?.fieldsV1 ?? {}, set);
  for (const p of removed) removePath(fields, p);
  if (Object.keys(set).length > 0 || mine) {
    const changed = !mine || JSON.stringify(fields) !== before;
    mine = {
      manager: w.manager,
      operation: operationOf(w),
      apiVersion: apiVersionOf(rt),
      time: changed ? time : mine!.time,
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
      ...(w.subresource ? { subresource: w.subresource } : {}),
    };
    entries.push(mine);
  }
  const kept = entries.filter((e) => Object.keys(e.fieldsV1 ?? {}).length > 0).sort(order);
  if (kept.length > 0) next.metadata.managedFields = kept;
  else delete next.metadata.managedFields;
}
