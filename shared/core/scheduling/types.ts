import type { ExistingModel } from './existing-model';
import type { InstanceType } from '../instance-types/types';
import type { DaemonSet, Namespace, NodeSelectorRequirement, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass, Taint } from '../model/kube';
import type { NodePool } from '../model/karpenter';
import type { CapacityTypeValue } from '../model/labels';
import type { ResourceList } from '../model/resources';

/** A node (or an in-flight NodeClaim without a node yet) the scheduler may place pods on. */
export interface ExistingNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  allocatable: ResourceList;
  /** Capacity counts against NodePool limits. */
  capacity: ResourceList;
  /** Pods already bound to the node (their requests are used; they count for topology). */
  pods: Pod[];
  nodePool?: string;
  nodeClaim?: string;
  /** Registered and initialized; uninitialized nodes' ephemeral taints are ignored. */
  initialized: boolean;
  /** A NodeClaim launched but without a Node yet. */
  inFlight?: boolean;
  /** Being deleted / disrupted: never a target. */
  markedForDeletion?: boolean;
  /** Hourly price of the node (for reports). */
  price?: number;
  /** CSI volumes it can attach per driver (from its instance type); absent = no known limit. */
  volumeLimits?: Readonly<Record<string, number>>;
}

export interface SchedulingOptions {
  /** PREFERENCE_POLICY: Respect (default) treats preferences as required until relaxed; Ignore drops them. */
  preferencePolicy?: 'Respect' | 'Ignore';
  /** MIN_VALUES_POLICY: Strict (default) or BestEffort. */
  minValuesPolicy?: 'Strict' | 'BestEffort';
  /** Instance types written to a claim, cheapest first (Karpenter's MaxInstanceTypes = 60). */
  maxInstanceTypes?: number;
  /** Pods that must not be placed on these nodes (consolidation simulations). */
  excludeNodes?: ReadonlySet<string>;
  /**
   * Existing-node models shared by solves over the same cluster (consolidation simulations): built once, each solve
   * leaves out `excludeNodes` and undoes its placements. Without it every solve builds its own.
   */
  existingModel?: ExistingModel;
}

export interface SchedulingInput {
  /** Pods to place. */
  pods: Pod[];
  nodePools: NodePool[];
  /** Instance types available to each NodePool (already resolved through its EC2NodeClass). */
  instanceTypes: Record<string, InstanceType[]>;
  existingNodes: ExistingNode[];
  daemonSets: DaemonSet[];
  persistentVolumes?: PersistentVolume[];
  persistentVolumeClaims?: PersistentVolumeClaim[];
  storageClasses?: StorageClass[];
  /** Namespaces and their labels, for affinity terms with a `namespaceSelector` (ClusterSnapshot.namespaces). */
  namespaces?: Namespace[];
  /** Capacity already in use per NodePool (Σ capacity of its nodes and claims), for limits. Computed from existingNodes when omitted. */
  poolUsage?: Record<string, ResourceList>;
  options?: SchedulingOptions;
}

export interface PlannedNodeClaim {
  /** A stable placeholder hostname used for hostname topology while planning. */
  hostname: string;
  nodePool: string;
  /** Compatible instance types, cheapest available offering first, cut to maxInstanceTypes. */
  instanceTypes: InstanceType[];
  /** The claim's requirements (pool ∩ pods), with instance-type In [...] and capacity-type narrowed. */
  requirements: NodeSelectorRequirement[];
  /** What the launch would request: spot when allowed and offered, else on-demand (reserved first). */
  capacityType: CapacityTypeValue;
  /** Set when the claim is pinned to one zone (requirements, topology or volumes), else null. */
  zone: string | null;
  pods: Pod[];
  /** Pod requests plus DaemonSet overhead. */
  requests: ResourceList;
  daemonOverhead: ResourceList;
  /** Cheapest available offering among the claim's types/zones/capacity types (USD/h). */
  price: number;
  labels: Record<string, string>;
  /** The NodePool template's annotations, copied onto the NodeClaim (and from there onto the Node at registration). */
  annotations?: Record<string, string>;
  taints: Taint[];
  startupTaints: Taint[];
  /** Copied from the NodePool template for the NodeClaim. */
  nodeClassRef: NodePool['template']['nodeClassRef'];
  expireAfter: number | null;
  terminationGracePeriod: number | null;
  minValuesRelaxed?: boolean;
}

export interface UnschedulablePod {
  pod: Pod;
  reason: string;
}

export interface Plan {
  nodeClaims: PlannedNodeClaim[];
  /** Pods placed onto existing nodes / in-flight claims, by node. */
  existingPlacements: { node: string; pods: Pod[] }[];
  unschedulable: UnschedulablePod[];
  /** Pods Karpenter would not consider at all (e.g. requiring karpenter.sh/nodepool DoesNotExist). */
  ignored: UnschedulablePod[];
}
