/**
 * What the API server enforces and fills in when an object is replaced (PUT or PATCH): the resourceVersion
 * precondition, the status subresource split, metadata a client cannot change, no new finalizers while
 * deleting, and the generation bump when anything but metadata and status changed.
 */
import { validateAgainstSchema } from './schema';
import { conflict, invalid } from './status';
import { apiVersionOf, type KubeObject, type ResourceType } from './types';

/** Objects are plain JSON; a JSON round trip copies them faster than structuredClone. */
export const clone = <T>(o: T): T => (o === undefined ? o : (JSON.parse(JSON.stringify(o)) as T));
/** What a write compares for the generation, kept per object (a stored object is never changed in place). */
const specs = new WeakMap<KubeObject, string>();
const withoutMetaAndStatus = (o: KubeObject): string => {
  let spec = specs.get(o);
  if (spec === undefined) {
    const { metadata: _m, status: _s, ...rest } = o;
    specs.set(o, (spec = JSON.stringify(rest)));
  }
  return spec;
};

/** Whether every field but metadata and status is the very same value (a status write shares them with the old object). */
function sameOutsideMetaAndStatus(a: KubeObject, b: KubeObject): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (k !== 'metadata' && k !== 'status' && a[k] !== b[k]) return false;
  return true;
}

/** A resourceVersion the client sent must be the stored one (optimistic concurrency). */
export function checkResourceVersion(rt: ResourceType, name: string, old: KubeObject, rv: string | undefined): void {
  if (rv !== undefined && rv !== old.metadata.resourceVersion) {
    throw conflict(rt.group, rt.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
}

/**
 * The object to store for a write of `next`: on the status subresource only the status changes; otherwise a
 * type with a status subresource keeps its stored status, and the result is validated against the schema.
 */
export function applyStatusRule(rt: ResourceType, old: KubeObject, next: KubeObject, subresource: 'status' | undefined): KubeObject {
  // Stored objects are never changed in place: the new one shares all but its metadata (which the write sets) with the old.
  if (subresource === 'status') return { ...old, metadata: clone(old.metadata), status: next.status };
  if (rt.subresources.includes('status')) next.status = clone(old.status);
  validateAgainstSchema(rt, next, old);
  return next;
}

/**
 * Metadata a write cannot change (name, namespace, uid, creationTimestamp, a deletion in progress), type
 * fields, the generation, and an empty finalizer list dropped. Throws when finalizers are added to an object
 * being deleted.
 */
export function carryOverMetadata(rt: ResourceType, old: KubeObject, next: KubeObject): void {
  const meta = next.metadata;
  const oldMeta = old.metadata;
  meta.name = oldMeta.name;
  if (rt.namespaced) meta.namespace = oldMeta.namespace;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) {
    meta.deletionTimestamp = oldMeta.deletionTimestamp;
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    const added = (meta.finalizers ?? []).filter((f) => !(oldMeta.finalizers ?? []).includes(f));
    if (added.length > 0)
      throw invalid(
        rt.kind,
        String(meta.name),
        'metadata.finalizers',
        `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      );
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  next.apiVersion = apiVersionOf(rt);
  next.kind = rt.kind;
  meta.generation = (oldMeta.generation ?? 1) + (sameOutsideMetaAndStatus(old, next) || withoutMetaAndStatus(old) === withoutMetaAndStatus(next) ? 0 : 1);
  if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;
}
