/** Plain Kubernetes JSON as the fake API server stores and serves it. */
export type Json = Record<string, unknown>;

interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Json[];
  [k: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Json;
  status?: Json;
  [k: string]: unknown;
}

/** One REST resource the server knows: where it lives and what it is called. */
export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural, lower case: "pods", "nodepools". */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Subresources served, e.g. ["status", "scale", "eviction", "binding"]. */
  subresources: string[];
  categories?: string[];
  /** A custom resource's openAPIV3Schema (served version): objects are validated against it on write. */
  schema?: Json;
}

export const apiVersionOf = (t: Pick<ResourceType, 'group' | 'version'>): string => (t.group ? `${t.group}/${t.version}` : t.version);

/** What changed in the store, for simulator controllers. */
export interface ChangeEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: ResourceType;
  /** The object as stored (ADDED, MODIFIED) or as it was deleted: read only, as `old`. */
  object: KubeObject;
  /** The stored object before the change (MODIFIED and DELETED): the store's own, read only. */
  old?: KubeObject;
}
