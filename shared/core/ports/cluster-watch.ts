import type { EC2NodeClass, NodeClaim, NodePool } from '../model/karpenter';
import type { Node, Pod } from '../model/kube';

export type WatchedKind = 'pods' | 'nodes' | 'nodeclaims' | 'nodepools' | 'nodeclasses';

export type WatchedObject =
  | { kind: 'pods'; name: string; pod: Pod }
  | { kind: 'nodes'; name: string; node: Node }
  | { kind: 'nodeclaims'; name: string; nodeClaim: NodeClaim }
  /** `nodePool` is absent when the object is not a valid NodePool (the provisioner reports those). */
  | { kind: 'nodepools'; name: string; nodePool?: NodePool }
  /** EC2NodeClasses; `nodeClass` is absent when the object is not a valid EC2NodeClass. */
  | { kind: 'nodeclasses'; name: string; nodeClass?: EC2NodeClass };

export type WatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: WatchedObject; resourceVersion?: string }
  /** Progress only: the stream is at `resourceVersion`. */
  | { type: 'BOOKMARK'; resourceVersion: string };

/** Why a watch stream ended: `gone` (410: the resourceVersion is too old — watch again from the current state). */
export interface WatchClosed {
  gone: boolean;
  error?: string;
}

export interface WatchHandle {
  stop(): void;
}

/**
 * Kubernetes watches as the controller uses them. Without `resourceVersion` the stream starts with every
 * existing object as ADDED (the API server's "current state, then changes"), so a consumer that treats events
 * as level (not edge) never needs a separate LIST.
 */
export interface ClusterWatch {
  watch(kind: WatchedKind, resourceVersion: string | undefined, onEvent: (e: WatchEvent) => void, onClosed: (why: WatchClosed) => void): Promise<WatchHandle>;
}
