import type {
  DaemonSet,
  Namespace,
  Node,
  ObjectOwnerReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StorageClass,
  Taint,
} from '../model/kube';
import type { ResolvedBuffer } from '../model/capacity-buffer';
import type {
  EC2NodeClass,
  EC2NodeClassStatus,
  NodeClaim,
  NodeClaimCondition,
  NodeOverlay,
  NodePool,
  NodePoolStatus,
  StatusCondition,
} from '../model/karpenter';

/**
 * A Kubernetes Event about an object, as Karpenter's recorder emits it: the same event within `dedupeSeconds`
 * (default 120) is dropped, a repeat after that raises the stored event's count (one Event object per object,
 * reason and message).
 */
export interface KubeEvent {
  object: { kind: 'Pod' | 'Node' | 'NodeClaim' | 'NodePool' | 'EC2NodeClass'; name: string; namespace?: string; uid?: string };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  dedupeSeconds?: number;
  /**
   * Deduplicated by object and reason alone, whatever the message (Karpenter's DedupeValues of the object's UID, as
   * for DisruptionBlocked): one such event per object within the window even when its reason's wording changes.
   */
  dedupeByObject?: boolean;
}

/** Everything the planner and disruption logic read from the cluster, in one consistent read. */
export interface ClusterSnapshot {
  pods: Pod[];
  nodes: Node[];
  nodeClaims: NodeClaim[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  pdbs: PodDisruptionBudget[];
  daemonSets: DaemonSet[];
  persistentVolumes: PersistentVolume[];
  persistentVolumeClaims: PersistentVolumeClaim[];
  storageClasses: StorageClass[];
  /** karpenter.sh/v1alpha1 NodeOverlays; absent or empty when there are none (or their CRD is not installed). */
  nodeOverlays?: NodeOverlay[];
  /** CapacityBuffers with their references resolved; absent or empty when there are none (or their CRD is not installed). */
  capacityBuffers?: ResolvedBuffer[];
  /**
   * The Namespaces and their labels: read only when a pod's affinity selects namespaces by label
   * (`namespaceSelector`); without them a selector sees the namespaces of the pods read, each with only its
   * `kubernetes.io/metadata.name` label.
   */
  namespaces?: Namespace[];
  /** Documents that could not be read as valid objects (e.g. an invalid NodePool), with the reason. */
  invalid?: { kind: string; name: string; reason: string }[];
}

/** The kinds `listObjects` reads: what a use case that needs no pods lists (garbage collection). */
export type ListedKind = 'nodes' | 'nodeClaims' | 'nodePools' | 'nodeClasses' | 'nodeOverlays';

/** What listObjects reads of all four kinds: enough for the NodePool/EC2NodeClass status, finalizer and hash reconcilers. */
export type ClusterObjects = Pick<ClusterSnapshot, Exclude<ListedKind, 'nodeOverlays'> | 'invalid'>;

/**
 * One NodeClaim read by name, as stored: missing, read, or stored but not readable by this version (`unreadable`
 * says which field failed to parse) — a claim the snapshot sets aside still exists.
 */
export type NodeClaimRead = { found: false } | { found: true; claim: NodeClaim } | { found: true; unreadable: string };

export type EvictionResult = 'evicted' | 'blocked' | 'gone';

export interface NodePatch {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  taints?: Taint[];
  unschedulable?: boolean;
  /** Replaces metadata.finalizers (`[]` clears it). Computed from a fresh read; the API refuses additions while deleting. */
  finalizers?: string[];
  /** Replaces metadata.ownerReferences, computed from a fresh read. */
  ownerReferences?: ObjectOwnerReference[];
}

/**
 * A kind with at least this many objects is kept warm by a container between its snapshots: its next read is a WATCH
 * from the copy's resourceVersion (the changes since), not a LIST — as long as the API server's watch cache still
 * reaches back there (kube-apiserver keeps at least the last 75 s of a busy kind; older is 410 Gone and a new LIST).
 */
export const KEPT_WARM_FROM = 2_000;

/** The Kubernetes API as nodewright uses it. Every write is idempotent. */
export interface ClusterClient {
  snapshot(): Promise<ClusterSnapshot>;
  getNode(name: string): Promise<Node | undefined>;
  /**
   * The Node with this providerID among the nodes not yet registered (no `karpenter.sh/registered` label): a label
   * selector, so the read grows with the nodes joining, not with the cluster (the API has no providerID field selector).
   */
  findUnregisteredNode(providerID: string): Promise<Node | undefined>;
  listPodsOnNode(nodeName: string): Promise<Pod[]>;
  getNodeClaim(name: string): Promise<NodeClaim | undefined>;
  /** GET of one NodeClaim that tells a missing claim from one this version cannot read (getNodeClaim throws for that). */
  readNodeClaim(name: string): Promise<NodeClaimRead>;
  /** Lists only these kinds (paged, mapped as snapshot() maps them); `invalid` names what could not be read, with the reason. */
  listObjects<K extends ListedKind>(kinds: readonly K[]): Promise<Pick<ClusterSnapshot, K | 'invalid'>>;
  /** Creates the claim; if one with the same name exists, returns it unchanged. */
  createNodeClaim(claim: NodeClaim): Promise<NodeClaim>;
  /** Merges status fields and upserts conditions by type. */
  patchNodeClaimStatus(name: string, status: Partial<Omit<NodeClaim['status'], 'conditions'>> & { conditions?: NodeClaimCondition[] }): Promise<void>;
  /**
   * Writes a NodePool's status (resources, nodes, conditions upserted by type; a condition keeps its
   * lastTransitionTime while its status holds). Returns false when nothing changed or the pool is gone.
   */
  patchNodePoolStatus(name: string, status: Partial<NodePoolStatus> & { conditions: NodePoolStatus['conditions'] }): Promise<boolean>;
  /** The same for an EC2NodeClass (resolved subnets, security groups, AMIs, instance profile and conditions). */
  patchNodeClassStatus(name: string, status: Partial<EC2NodeClassStatus> & { conditions: EC2NodeClassStatus['conditions'] }): Promise<boolean>;
  /**
   * Writes a NodeOverlay's status conditions (upserted by type, lastTransitionTime kept while the status holds).
   * Returns false when nothing changed, the overlay is gone or its CRD is not installed.
   */
  patchNodeOverlayStatus(name: string, conditions: StatusCondition[]): Promise<boolean>;
  /** Writes a CapacityBuffer's status (replicas, conditions upserted by type); false when nothing changed or it is gone. */
  patchCapacityBufferStatus(buffer: { namespace: string; name: string }, status: { replicas?: number; conditions: StatusCondition[] }): Promise<boolean>;
  /** Merge-patches a NodePool's or EC2NodeClass's metadata.annotations; a missing object is success. */
  patchAnnotations(kind: 'NodePool' | 'EC2NodeClass', name: string, annotations: Record<string, string>): Promise<void>;
  /** Replaces an EC2NodeClass's metadata.finalizers (`[]` clears them); a missing class is success. */
  patchNodeClassFinalizers(name: string, finalizers: string[]): Promise<void>;
  /** Records an Event (best effort is the caller's choice: it throws on API errors). */
  recordEvent(event: KubeEvent): Promise<void>;
  patchNodeClaimMetadata(
    name: string,
    patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null>; finalizers?: string[] },
  ): Promise<void>;
  /** Deletes (or marks for deletion, when finalizers remain); a missing claim is success. */
  deleteNodeClaim(name: string): Promise<void>;
  /** Merge-patches labels/annotations/taints; a missing node is success and returns false. */
  patchNode(name: string, patch: NodePatch): Promise<boolean>;
  /**
   * Sets a pending pod's status.nominatedNodeName: kube-scheduler tries that node first and, until the pod binds,
   * keeps its room there from pods of no higher priority (KEP-5278, Kubernetes ≥ 1.35; PreferNominatedNode before).
   * A missing pod is success.
   */
  nominatePod(pod: { namespace: string; name: string }, nodeName: string): Promise<void>;
  /** Merges these annotations into the pod's metadata (null removes one); a missing pod is success. */
  annotatePod(pod: { namespace: string; name: string }, annotations: Record<string, string | null>): Promise<void>;
  /** Eviction API: 429 (PDB) → blocked, 404/409 → gone. */
  evict(pod: { namespace: string; name: string }): Promise<EvictionResult>;
  /** Delete bypassing PDBs (terminationGracePeriod expiry only). */
  deletePod(pod: { namespace: string; name: string }, gracePeriodSeconds: number): Promise<void>;
  deleteNode(name: string): Promise<void>;
}

/** The cluster's configuration: what scheduling a handful of pods needs besides the pods (tens of objects, not the workload). */
export type SchedulingConfig = Pick<ClusterSnapshot, 'nodePools' | 'nodeClasses' | 'daemonSets' | 'storageClasses' | 'nodeOverlays'>;

/**
 * Reads by name, or of the cluster's few configuration objects, for a handler that acts on one object and must not
 * read the whole cluster (the interruption function: docs/interruption.md, "What the function reads").
 */
export interface ScopedClusterReads {
  /** One NodePool by name; undefined when it is missing or fails validation. */
  getNodePool(name: string): Promise<NodePool | undefined>;
  /** Every NodeClaim (claims only: for an instance whose `karpenter.sh/nodeclaim` tag is missing). */
  listNodeClaims(): Promise<NodeClaim[]>;
  /** NodePools, EC2NodeClasses, DaemonSets, StorageClasses and NodeOverlays; objects that fail validation are left out. */
  schedulingConfig(): Promise<SchedulingConfig>;
  /** The named PersistentVolumeClaims and the PersistentVolumes they are bound to; missing ones are left out. */
  volumesOf(claims: readonly { namespace: string; name: string }[]): Promise<Pick<ClusterSnapshot, 'persistentVolumeClaims' | 'persistentVolumes'>>;
}
