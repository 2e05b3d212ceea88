/**
 * Normalized Kubernetes objects: the fields the scheduler and disruption logic read, with quantities
 * already parsed. Built from plain Kubernetes JSON (manifests or API responses) by ./from-kube.ts.
 */
import type { ResourceList } from './resources';
import type { EpochMs } from '../time';

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface NodeSelectorRequirement {
  key: string;
  operator: Operator;
  values?: string[];
  /** Karpenter extension on NodePool requirements. */
  minValues?: number;
}

export interface NodeSelectorTerm {
  matchExpressions: NodeSelectorRequirement[];
  /** matchFields is unsupported by Karpenter; a pod using it is ignored. */
  matchFields?: NodeSelectorRequirement[];
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

export interface Affinity {
  nodeAffinity?: {
    required?: NodeSelectorTerm[];
    preferred?: PreferredSchedulingTerm[];
  };
  podAffinity?: { required?: PodAffinityTerm[]; preferred?: WeightedPodAffinityTerm[] };
  podAntiAffinity?: { required?: PodAffinityTerm[]; preferred?: WeightedPodAffinityTerm[] };
}

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: TaintEffect | '';
  tolerationSeconds?: number;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
  matchLabelKeys?: string[];
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
}

export interface HostPort {
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  hostIP?: string;
}

export interface OwnerRef {
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface PodVolumeClaim {
  /** Name of a PersistentVolumeClaim in the pod's namespace. */
  claimName: string;
  /** For generic ephemeral volumes: the storage class of the template (undefined = default). */
  ephemeral?: { storageClassName?: string };
}

/** A Namespace's labels, for pod affinity terms that select namespaces by label (`namespaceSelector`). */
export interface Namespace {
  name: string;
  labels: Record<string, string>;
}

export interface Pod {
  uid: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  creationTimestamp: EpochMs;
  /** Set when the pod is terminating. */
  deletionTimestamp?: EpochMs;
  /** When the pod started running. */
  startTime?: EpochMs;
  nodeName?: string;
  nominatedNodeName?: string;
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** True when kube-scheduler marked the pod PodScheduled=False reason=Unschedulable. */
  unschedulable?: boolean;
  ready?: boolean;
  /** When the pod became Ready (its Ready condition's lastTransitionTime), while it is. */
  readySince?: EpochMs;
  /** Effective requests: max(Σ containers + sidecars, largest init) + RuntimeClass overhead. */
  requests: ResourceList;
  nodeSelector: Record<string, string>;
  affinity?: Affinity;
  tolerations: Toleration[];
  topologySpreadConstraints: TopologySpreadConstraint[];
  hostPorts: HostPort[];
  volumeClaims: PodVolumeClaim[];
  owner?: OwnerRef;
  priority: number;
  priorityClassName?: string;
  terminationGracePeriodSeconds: number;
  schedulerName?: string;
}

export interface Node {
  name: string;
  uid?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  taints: Taint[];
  capacity: ResourceList;
  allocatable: ResourceList;
  providerID?: string;
  unschedulable: boolean;
  ready: boolean;
  creationTimestamp: EpochMs;
  deletionTimestamp?: EpochMs;
  finalizers: string[];
  /** metadata.ownerReferences (registration adds the node's NodeClaim, as Karpenter does). */
  ownerReferences?: ObjectOwnerReference[];
  /**
   * status.volumesAttached names: the volumes the attach/detach controller has attached to the node and not yet
   * detached (`kubernetes.io/csi/<driver>^<volume handle>`); termination waits for them (volume-detach.ts).
   */
  volumesAttached?: string[];
  /** The node's conditions a repair policy covers (shared/core/model/repair-policies.ts), with when each began. */
  unhealthy?: { type: string; status: string; since: EpochMs; reason?: string }[];
}

/** A full metadata.ownerReferences entry, for objects nodewright writes owners on. */
export interface ObjectOwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}

export interface DaemonSet {
  namespace: string;
  name: string;
  /** The pod template as a Pod (no node, no uid of its own). */
  template: Pod;
}

export interface PodDisruptionBudget {
  namespace: string;
  name: string;
  selector?: LabelSelector;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  /** From status when read from a cluster; computed by the caller otherwise. */
  disruptionsAllowed?: number;
}

export interface PersistentVolume {
  name: string;
  storageClassName?: string;
  /** Required node affinity terms of the volume (zonal EBS volumes). */
  nodeAffinity?: NodeSelectorTerm[];
  claimRef?: { namespace: string; name: string };
  csiDriver?: string;
  /** spec.csi.volumeHandle, or an in-tree EBS volume's id (`vol-…`): with the driver, the name it is attached under. */
  volumeHandle?: string;
  /** A `local` or `hostPath` volume: its hostname terms name the node it was made on and do not bind a new node. */
  local?: boolean;
  /** The PV has a deletionTimestamp. */
  deleting?: boolean;
}

export interface PersistentVolumeClaim {
  namespace: string;
  name: string;
  storageClassName?: string;
  volumeName?: string;
  phase: 'Pending' | 'Bound' | 'Lost';
  deleting?: boolean;
  /** Carries `pv.kubernetes.io/bind-completed` (without it a PVC naming a volume is still considered unbound). */
  bindCompleted?: boolean;
}

export interface StorageClass {
  name: string;
  provisioner: string;
  volumeBindingMode: 'Immediate' | 'WaitForFirstConsumer';
  allowedTopologies?: NodeSelectorTerm[];
  isDefault: boolean;
  creationTimestamp: EpochMs;
}

export interface PriorityClass {
  name: string;
  value: number;
}

export function podKey(p: { namespace: string; name: string }): string {
  return `${p.namespace}/${p.name}`;
}
