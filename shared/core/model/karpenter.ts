/** Normalized Karpenter v1 objects (NodePool, EC2NodeClass, NodeClaim), defaults applied. */
import type { NodeSelectorRequirement, Taint } from './kube';
import type { ResourceList } from './resources';
import type { EpochMs } from '../time';

type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted';

export interface Budget {
  /** "10%" or "3". */
  nodes: string;
  /** UTC cron or macro (@daily …); requires duration. */
  schedule?: string;
  /** Seconds. */
  duration?: number;
  /** Omitted = all reasons. */
  reasons?: DisruptionReason[];
}

interface NodeClassRef {
  group: string;
  kind: string;
  name: string;
}

/** A hash annotation pair as recorded on an object (absent keys: not recorded yet). */
export interface RecordedHash {
  hash?: string;
  version?: string;
}

/** One window of `nodewright.io/schedules`: while open (cron hit within `duration`), these replace the pool's own. */
export interface PoolSchedule {
  schedule: string;
  /** Seconds. */
  duration: number;
  limits?: ResourceList;
  consolidationPolicy?: ConsolidationPolicy;
  /** Seconds; null = Never. */
  consolidateAfter?: number | null;
}

export interface NodePool {
  name: string;
  uid?: string;
  /** 0..100, higher tried first. */
  weight: number;
  template: {
    labels: Record<string, string>;
    annotations: Record<string, string>;
    taints: Taint[];
    startupTaints: Taint[];
    requirements: NodeSelectorRequirement[];
    nodeClassRef: NodeClassRef;
    /** Seconds; null = Never. Default 720h. */
    expireAfter: number | null;
    /** Seconds; null = wait forever. */
    terminationGracePeriod: number | null;
  };
  disruption: {
    consolidationPolicy: ConsolidationPolicy;
    /** Seconds; null = Never. */
    consolidateAfter: number | null;
    budgets: Budget[];
    /**
     * Balanced's k (a move passes when its share of the pool's savings over its share of the pool's disruption is at
     * least 1/k): 2 as Karpenter fixes it, or the pool's `nodewright.io/balanced-k` annotation.
     */
    balancedK?: number;
    /** `nodewright.io/disruption-rate`: at most `nodes` ("3" or "20%" of the pool) voluntary disruptions per window. */
    rate?: { nodes: string; windowSeconds: number };
    /** When the pool's recent voluntary disruptions started (`nodewright.io/disruption-rate-ledger`), oldest first. */
    rateLedger?: EpochMs[];
  };
  /** `nodewright.io/schedules`: overrides of limits and consolidation while a UTC cron window is open (later entries win). */
  schedules?: PoolSchedule[];
  /** Capacity limits (cpu millicores, memory bytes, pods, gpu, nodes). */
  limits: ResourceList;
  /**
   * Static NodePool (`spec.replicas`, Karpenter v1.8+): kept at exactly this many nodes, never used for pending
   * pods, never consolidated. Undefined = a dynamic pool.
   */
  replicas?: number;
  /** karpenter.sh/nodepool-hash of the template (see core/model/hash.ts). */
  hash?: string;
  /** The hash and hash version recorded on the pool's own metadata.annotations (garbage collection keeps them). */
  recordedHash?: RecordedHash;
  deleting?: boolean;
  /** False when the pool failed validation or its node class is not ready. */
  ready?: boolean;
  /** The status as last written (status.resources, status.nodes, conditions), to write only what changes. */
  observedStatus?: NodePoolStatus;
  /**
   * What a rebalance recommendation does to this pool's nodes (annotation `nodewright.io/rebalance-policy`):
   * unset records it (Karpenter's behaviour: an event only), `ignore` drops it, `pre-provision` launches
   * replacement capacity without draining, `drain` replaces and drains the node as a scheduled change would.
   */
  rebalancePolicy?: RebalancePolicy;
}

/** A status condition as written (its lastTransitionTime is kept by the adapter while the status holds). */
export interface StatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** A NodePool's status as Karpenter writes it (nodepool.counter and nodepool.readiness / validation controllers). */
export interface NodePoolStatus {
  /** cpu, memory, pods, ephemeral-storage and nodes of the pool's NodeClaims, as quantities. */
  resources: Record<string, string>;
  nodes: number;
  conditions: StatusCondition[];
}

/**
 * karpenter.sh/v1alpha1 NodeOverlay: changes the scheduler's view of the instance types it matches (Karpenter's
 * designs/node-overlay.md) — a price or a price adjustment per offering, extended resources added to capacity.
 */
export interface NodeOverlay {
  name: string;
  /** spec.weight (1..10000); 0 when unset. Higher weights win; equal weights conflict where both set a value. */
  weight: number;
  /** Which (NodePool, instance type, offering) it applies to; empty = all. */
  requirements: NodeSelectorRequirement[];
  /** An absolute price per hour ("5.00"), as written. */
  price?: string;
  /** A signed change of the price: "+0.05", "-1.2", "+10%", "-15%" (at most -100%). */
  priceAdjustment?: string;
  /** Extended resources added to matching types' capacity (never cpu, memory, ephemeral-storage, pods). */
  capacity: ResourceList;
  generation?: number;
  /** status.conditions as last written (type, status, reason, message). */
  observedConditions?: StatusCondition[];
}

/** An EC2NodeClass's status as Karpenter's nodeclass controller writes it: what it resolved, and conditions. */
export type EC2NodeClassStatus = NonNullable<EC2NodeClass['status']> & { conditions: StatusCondition[] };

export const RebalancePolicies = ['ignore', 'pre-provision', 'drain'] as const;
export type RebalancePolicy = (typeof RebalancePolicies)[number];

export interface SelectorTerm {
  tags?: Record<string, string>;
  id?: string;
  name?: string;
  owner?: string;
  alias?: string;
  ssmParameter?: string;
}

export interface KubeletConfiguration {
  clusterDNS?: string[];
  maxPods?: number;
  podsPerCore?: number;
  systemReserved?: ResourceList;
  kubeReserved?: ResourceList;
  /** Signal → value as written ("100Mi", "10%"). */
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionMaxPodGracePeriod?: number;
  imageGCHighThresholdPercent?: number;
  imageGCLowThresholdPercent?: number;
  cpuCFSQuota?: boolean;
}

export interface BlockDeviceMapping {
  deviceName: string;
  rootVolume?: boolean;
  ebs?: {
    volumeSize?: number; // bytes
    volumeType?: string;
    iops?: number;
    throughput?: number;
    encrypted?: boolean;
    kmsKeyID?: string;
    deleteOnTermination?: boolean;
    snapshotID?: string;
  };
}

export type AmiFamily = 'AL2' | 'AL2023' | 'Bottlerocket' | 'Custom' | 'Windows2019' | 'Windows2022' | 'Windows2025';

/** One interface of EC2NodeClass spec.networkInterfaces. */
export interface NetworkInterface {
  networkCardIndex: number;
  deviceIndex: number;
  interfaceType: 'interface' | 'efa-only';
}

/** The IAM role name of `spec.role`, which may be a name or an ARN / path ending in the name. */
export const nodeClassRoleName = (role: string): string => role.split('/').pop() ?? role;

export interface EC2NodeClass {
  name: string;
  uid?: string;
  amiFamily: AmiFamily;
  amiSelectorTerms: SelectorTerm[];
  subnetSelectorTerms: SelectorTerm[];
  securityGroupSelectorTerms: SelectorTerm[];
  capacityReservationSelectorTerms?: SelectorTerm[];
  role?: string;
  instanceProfile?: string;
  userData?: string;
  tags: Record<string, string>;
  kubelet?: KubeletConfiguration;
  blockDeviceMappings: BlockDeviceMapping[];
  metadataOptions: {
    httpEndpoint: 'enabled' | 'disabled';
    httpProtocolIPv6: 'enabled' | 'disabled';
    httpPutResponseHopLimit: number;
    httpTokens: 'required' | 'optional';
  };
  associatePublicIPAddress?: boolean;
  detailedMonitoring?: boolean;
  instanceStorePolicy?: 'RAID0';
  /** spec.networkInterfaces: absent = one primary interface (and EFA interfaces when a claim requests `vpc.amazonaws.com/efa`). */
  networkInterfaces?: NetworkInterface[];
  context?: string;
  hash?: string;
  /** The hash and hash version recorded on the class's own metadata.annotations (garbage collection keeps them). */
  recordedHash?: RecordedHash;
  deleting?: boolean;
  /** metadata.finalizers (Karpenter's `karpenter.k8s.aws/termination` holds a deleted class until no NodeClaim uses it). */
  finalizers?: string[];
  /** The Ready condition of its status, when it has one. */
  ready?: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
  /** Resolved by the cloud provider (status); absent offline. */
  status?: {
    subnets?: { id: string; zone: string; zoneID?: string }[];
    securityGroups?: { id: string; name?: string }[];
    amis?: { id: string; name?: string; requirements?: NodeSelectorRequirement[] }[];
    instanceProfile?: string;
  };
}

export interface NodeClaimCondition {
  type:
    | 'Launched'
    | 'Registered'
    | 'Initialized'
    | 'Consolidatable'
    | 'Drifted'
    | 'Drained'
    | 'VolumesDetached'
    | 'InstanceTerminating'
    | 'DisruptionReason'
    | 'Ready'
    | string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: EpochMs;
}

export interface NodeClaim {
  name: string;
  uid?: string;
  /** The owning NodePool's uid (metadata.ownerReferences): the API server deletes the claim when the pool goes. */
  nodePoolUid?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  nodePool: string;
  spec: {
    taints: Taint[];
    startupTaints: Taint[];
    requirements: NodeSelectorRequirement[];
    resources: { requests: ResourceList };
    nodeClassRef: NodeClassRef;
    expireAfter: number | null;
    terminationGracePeriod: number | null;
  };
  status: {
    nodeName?: string;
    providerID?: string;
    imageID?: string;
    capacity?: ResourceList;
    allocatable?: ResourceList;
    lastPodEventTime?: EpochMs;
    conditions: NodeClaimCondition[];
  };
  creationTimestamp: EpochMs;
  deletionTimestamp?: EpochMs;
  finalizers: string[];
}

export function conditionIsTrue(claim: { status: { conditions: NodeClaimCondition[] } }, type: string): boolean {
  return claim.status.conditions.some((c) => c.type === type && c.status === 'True');
}
