import type { EC2NodeClass, NodeClaim, NodePool } from '../model/karpenter';
import type { Node, Pod } from '../model/kube';

/**
 * `pods` are the pods not bound to a node (spec.nodeName empty: a pod that binds leaves the stream as DELETED, one
 * created pending enters it as ADDED); `boundpods` the others (spec.nodeName set), an edge-only stream: never
 * listed — opened without a resourceVersion it starts at the current state with no object (SYNCED at once), so
 * each of its events is a change, not the state. At 50,000 pods a re-list at every hand-over would cost a minute
 * of a small function's CPU, and their index 4 MB, for objects the controller only needs the changes of.
 */
export type WatchedKind = 'pods' | 'boundpods' | 'nodes' | 'nodeclaims' | 'nodepools' | 'nodeclasses';

export type WatchedObject =
  | { kind: 'pods'; name: string; pod: Pod }
  | { kind: 'boundpods'; name: string; pod: Pod }
  | { kind: 'nodes'; name: string; node: Node }
  | { kind: 'nodeclaims'; name: string; nodeClaim: NodeClaim }
  /** `nodePool` is absent when the object is not a valid NodePool (the provisioner reports those). */
  | { kind: 'nodepools'; name: string; nodePool?: NodePool }
  /** EC2NodeClasses; `nodeClass` is absent when the object is not a valid EC2NodeClass. */
  | { kind: 'nodeclasses'; name: string; nodeClass?: EC2NodeClass };

export type WatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: WatchedObject; resourceVersion?: string }
  /** Progress only: the `kind` stream is at `resourceVersion` (an API server's bookmark: resume that stream there). */
  | { type: 'BOOKMARK'; kind: WatchedKind; resourceVersion: string }
  /**
   * A stream opened without a resourceVersion has delivered every object of `kind` that exists (each as ADDED) and
   * goes on from `resourceVersion`: an object of that kind known from before and not delivered since is gone.
   */
  | { type: 'SYNCED'; kind: WatchedKind; resourceVersion: string };

/** Why a watch stream ended: `gone` (410: the resourceVersion is too old — watch again from the current state). */
export interface WatchClosed {
  gone: boolean;
  error?: string;
}

export interface WatchHandle {
  stop(): void;
}

/**
 * Kubernetes watches as the controller uses them. Without `resourceVersion` the stream starts with every existing
 * object as ADDED, then SYNCED (client-go's reflector: LIST, then WATCH from the list's resourceVersion), so a
 * consumer that treats events as level (not edge) and replaces what it knew at SYNCED misses nothing and keeps
 * nothing deleted (`boundpods` delivers no object before SYNCED). With one, it resumes after that resourceVersion (410 Gone when too old). A stream that cannot
 * be opened or breaks (no answer within the adapter's connect timeout, an error status) ends with `onClosed`; the
 * returned promise may resolve before the stream is established.
 */
export interface ClusterWatch {
  watch(kind: WatchedKind, resourceVersion: string | undefined, onEvent: (e: WatchEvent) => void, onClosed: (why: WatchClosed) => void): Promise<WatchHandle>;
}
