/** Well-known label, annotation, taint and tag keys (docs/karpenter-reference.md §1.4). */
export const Label = {
  nodePool: 'karpenter.sh/nodepool',
  capacityType: 'karpenter.sh/capacity-type',
  registered: 'karpenter.sh/registered',
  initialized: 'karpenter.sh/initialized',
  nodeClaim: 'karpenter.sh/nodeclaim',
  zone: 'topology.kubernetes.io/zone',
  zoneId: 'topology.k8s.aws/zone-id',
  region: 'topology.kubernetes.io/region',
  instanceType: 'node.kubernetes.io/instance-type',
  arch: 'kubernetes.io/arch',
  os: 'kubernetes.io/os',
  hostname: 'kubernetes.io/hostname',
  windowsBuild: 'node.kubernetes.io/windows-build',
  ec2NodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  instanceCategory: 'karpenter.k8s.aws/instance-category',
  instanceFamily: 'karpenter.k8s.aws/instance-family',
  instanceGeneration: 'karpenter.k8s.aws/instance-generation',
  instanceSize: 'karpenter.k8s.aws/instance-size',
  instanceCpu: 'karpenter.k8s.aws/instance-cpu',
  instanceCpuManufacturer: 'karpenter.k8s.aws/instance-cpu-manufacturer',
  instanceCpuSustainedClockSpeedMhz: 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  instanceCapabilityFlex: 'karpenter.k8s.aws/instance-capability-flex',
  instanceEncryptionInTransitSupported: 'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  nitroSandbox: 'karpenter.k8s.aws/nitro-sandbox',
  instanceMemory: 'karpenter.k8s.aws/instance-memory',
  instanceHypervisor: 'karpenter.k8s.aws/instance-hypervisor',
  instanceEbsBandwidth: 'karpenter.k8s.aws/instance-ebs-bandwidth',
  instanceNetworkBandwidth: 'karpenter.k8s.aws/instance-network-bandwidth',
  instanceGpuName: 'karpenter.k8s.aws/instance-gpu-name',
  instanceGpuManufacturer: 'karpenter.k8s.aws/instance-gpu-manufacturer',
  instanceGpuCount: 'karpenter.k8s.aws/instance-gpu-count',
  instanceGpuMemory: 'karpenter.k8s.aws/instance-gpu-memory',
  instanceAcceleratorName: 'karpenter.k8s.aws/instance-accelerator-name',
  instanceAcceleratorManufacturer: 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  instanceAcceleratorCount: 'karpenter.k8s.aws/instance-accelerator-count',
  instanceLocalNvme: 'karpenter.k8s.aws/instance-local-nvme',
  instanceTenancy: 'karpenter.k8s.aws/instance-tenancy',
  excludeFromExternalLB: 'node.kubernetes.io/exclude-from-external-load-balancers',
} as const;

/** Beta/legacy label keys normalized to their GA form. */
export const NormalizedLabels: Record<string, string> = {
  'failure-domain.beta.kubernetes.io/zone': Label.zone,
  'failure-domain.beta.kubernetes.io/region': Label.region,
  'beta.kubernetes.io/arch': Label.arch,
  'beta.kubernetes.io/os': Label.os,
  'beta.kubernetes.io/instance-type': Label.instanceType,
  'karpenter.sh/provisioner-name': Label.nodePool,
  // The EBS CSI driver's zone key (Karpenter's AWS provider normalizes it the same way).
  'topology.ebs.csi.aws.com/zone': Label.zone,
};

/** The `karpenter.k8s.aws/instance-*` labels: properties of the instance type itself. */
export const InstanceTypePropertyLabels = [
  Label.instanceCategory,
  Label.instanceFamily,
  Label.instanceGeneration,
  Label.instanceSize,
  Label.instanceCpu,
  Label.instanceCpuManufacturer,
  Label.instanceCpuSustainedClockSpeedMhz,
  Label.instanceCapabilityFlex,
  Label.instanceEncryptionInTransitSupported,
  Label.nitroSandbox,
  Label.instanceMemory,
  Label.instanceHypervisor,
  Label.instanceEbsBandwidth,
  Label.instanceNetworkBandwidth,
  Label.instanceGpuName,
  Label.instanceGpuManufacturer,
  Label.instanceGpuCount,
  Label.instanceGpuMemory,
  Label.instanceAcceleratorName,
  Label.instanceAcceleratorManufacturer,
  Label.instanceAcceleratorCount,
  Label.instanceLocalNvme,
  Label.instanceTenancy,
] as const;

/** Keys whose values nodewright knows for every instance type; pods may use these even when a pool doesn't define them. */
export const WellKnownLabels: ReadonlySet<string> = new Set([
  Label.nodePool,
  Label.capacityType,
  Label.zone,
  Label.region,
  Label.instanceType,
  Label.arch,
  Label.os,
  Label.windowsBuild,
  Label.zoneId,
  Label.ec2NodeClass,
  ...InstanceTypePropertyLabels,
]);

/** Labels users may not set on a NodePool template (docs/karpenter-reference.md §1.1). */
export const RestrictedLabels: ReadonlySet<string> = new Set([Label.nodePool, Label.hostname]);
export const RestrictedLabelDomains = ['karpenter.sh', 'karpenter.k8s.aws'] as const;

export const Annotation = {
  doNotDisrupt: 'karpenter.sh/do-not-disrupt',
  /** Pre-v1 pod annotation, honoured as an alias of do-not-disrupt when "true" (blocks voluntary disruption of the pod's node). */
  doNotEvict: 'karpenter.sh/do-not-evict',
  /** Pre-v1 node annotation, honoured when "true": the node is not consolidated (drift and expiration still apply). */
  doNotConsolidate: 'karpenter.sh/do-not-consolidate',
  /** nodewright's NodePool annotation: ignore | pre-provision | drain (see NodePool.rebalancePolicy). */
  rebalancePolicy: 'nodewright.io/rebalance-policy',
  /** nodewright's NodePool annotation: k of consolidationPolicy Balanced (a number ≥ 1; Karpenter fixes k = 2). */
  balancedK: 'nodewright.io/balanced-k',
  /** nodewright's NodePool annotation: voluntary disruptions at most this fast, `<nodes or %>/<window>` (e.g. "20%/1h"). */
  disruptionRate: 'nodewright.io/disruption-rate',
  /** Written by nodewright on a NodePool with a disruption rate: when its recent disruptions started (epoch seconds, comma-separated). */
  disruptionRateLedger: 'nodewright.io/disruption-rate-ledger',
  /** nodewright's NodePool annotation: limits / consolidation overrides on a UTC cron schedule (a YAML or JSON list). */
  schedules: 'nodewright.io/schedules',
  /** On a node tainted karpenter.sh/disrupted: `<machine>/<execution name>` that holds the taint (the stale-taint sweep asks it). */
  disruptedBy: 'nodewright.io/disrupted-by',
  /** On a NodeClaim: when node repair rebooted its instance (RFC 3339); a second failure soon after is replaced, not rebooted. */
  repairRebootedAt: 'nodewright.io/repair-rebooted-at',
  /** On a NodeClaim launched as standby capacity: the CapacityBuffer, `<namespace>/<name>`. */
  standby: 'nodewright.io/standby',
  /** On a standby NodeClaim: how many of the buffer's chunks it holds. */
  standbyChunks: 'nodewright.io/standby-chunks',
  /** On a standby NodeClaim: `stopped` once its instance was stopped, `starting` once it is started for pending pods. */
  standbyState: 'nodewright.io/standby-state',
  /** On a CapacityBuffer's virtual pod (never written to the cluster), "true"; Karpenter's keys. */
  bufferPod: 'karpenter.sh/capacity-buffer-fake-pod',
  bufferName: 'karpenter.sh/capacity-buffer-name',
  bufferNamespace: 'karpenter.sh/capacity-buffer-namespace',
  /** On a replacement NodeClaim: the id of the disruption that created it (only that disruption may launch or roll it back). */
  disruptionId: 'nodewright.io/disruption-id',
  /** On a NodeClaim: the uids of the pods it was planned for (a later round keeps them on it while it is in flight). */
  plannedPods: 'nodewright.io/planned-pods',
  nodePoolHash: 'karpenter.sh/nodepool-hash',
  nodePoolHashVersion: 'karpenter.sh/nodepool-hash-version',
  nodeClassHash: 'karpenter.k8s.aws/ec2nodeclass-hash',
  nodeClassHashVersion: 'karpenter.k8s.aws/ec2nodeclass-hash-version',
  minValuesRelaxed: 'karpenter.sh/nodeclaim-min-values-relaxed',
  /** On a NodeClaim whose instance types include a NodeOverlay price: CreateFleet launches by those prices (prioritized). */
  priceOverlayApplied: 'karpenter.sh/price-overlay-applied',
  /** On a NodeClaim whose instance types include NodeOverlay capacity (extended resources). */
  capacityOverlayApplied: 'karpenter.sh/capacity-overlay-applied',
  terminationTimestamp: 'karpenter.sh/nodeclaim-termination-timestamp',
  tagged: 'karpenter.k8s.aws/tagged',
  clusterNameTagged: 'compatibility.karpenter.k8s.aws/cluster-name-tagged',
  doNotSyncTaints: 'karpenter.sh/do-not-sync-taints',
  podDeletionCost: 'controller.kubernetes.io/pod-deletion-cost',
  /** A pod's eviction cost for consolidation (int32), set by users: read before pod-deletion-cost (Karpenter, alpha). */
  disruptionCost: 'karpenter.sh/disruption-cost',
  /** On a pod whose pod-deletion-cost nodewright writes (PodDeletionCostManagement), with the value it last wrote. */
  managedDeletionCost: 'karpenter.sh/managed-deletion-cost',
  lastAssignedDeletionCost: 'karpenter.sh/last-assigned-deletion-cost',
} as const;

export const TaintKey = {
  disrupted: 'karpenter.sh/disrupted',
  unregistered: 'karpenter.sh/unregistered',
  notReady: 'node.kubernetes.io/not-ready',
  unreachable: 'node.kubernetes.io/unreachable',
  uninitialized: 'node.cloudprovider.kubernetes.io/uninitialized',
  unschedulable: 'node.kubernetes.io/unschedulable',
  /** On a standby node (nodewright): nothing schedules there until it is started for pending pods. */
  standby: 'nodewright.io/standby',
  /** The cloud controller's taint on a node whose instance is stopped. */
  shutdown: 'node.cloudprovider.kubernetes.io/shutdown',
} as const;

/** Taints a new node carries until kubelet and registration are done (Karpenter's known ephemeral taints). */
export const EphemeralTaintKeys: ReadonlySet<string> = new Set([TaintKey.notReady, TaintKey.unreachable, TaintKey.uninitialized, TaintKey.unregistered]);

export const Finalizer = { termination: 'karpenter.sh/termination', nodeClassTermination: 'karpenter.k8s.aws/termination' } as const;

export const CapacityType = { onDemand: 'on-demand', spot: 'spot', reserved: 'reserved' } as const;
export type CapacityTypeValue = (typeof CapacityType)[keyof typeof CapacityType];

export const Tag = {
  clusterPrefix: 'kubernetes.io/cluster/',
  nodePool: 'karpenter.sh/nodepool',
  nodeClaim: 'karpenter.sh/nodeclaim',
  nodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  eksClusterName: 'eks:eks-cluster-name',
  name: 'Name',
  managedBy: 'nodewright.io/managed-by',
} as const;
