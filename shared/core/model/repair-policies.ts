/**
 * Node repair policies (Karpenter's node.health controller with the AWS provider's RepairPolicies,
 * aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go): a node whose condition has had this status for
 * longer than the toleration is repaired. nodewright adds the repair action and the drain bound per condition
 * (Karpenter v1.15's reason-aware policies): monitoring-agent conditions a reboot can clear are rebooted once first.
 */
export interface RepairPolicy {
  conditionType: string;
  conditionStatus: 'True' | 'False' | 'Unknown';
  tolerationSeconds: number;
  /** `reboot`: an EC2 reboot first, a replacement if the condition is still (or again) unhealthy after it. */
  action: 'reboot' | 'replace';
  /** How long the node's drain may wait for PDBs before its pods are deleted (the claim's terminationGracePeriod, at most this). */
  drainSeconds: number;
}

const MIN = 60;

const RepairPolicies: readonly RepairPolicy[] = [
  // kubelet: NotReady, or not posting (Unknown): pods there cannot stop gracefully; the taint manager's 5 min bound.
  { conditionType: 'Ready', conditionStatus: 'False', tolerationSeconds: 30 * MIN, action: 'replace', drainSeconds: 5 * MIN },
  { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationSeconds: 30 * MIN, action: 'replace', drainSeconds: 5 * MIN },
  // The EKS node monitoring agent's conditions.
  { conditionType: 'AcceleratedHardwareReady', conditionStatus: 'False', tolerationSeconds: 10 * MIN, action: 'replace', drainSeconds: 10 * MIN },
  { conditionType: 'StorageReady', conditionStatus: 'False', tolerationSeconds: 30 * MIN, action: 'reboot', drainSeconds: 15 * MIN },
  { conditionType: 'NetworkingReady', conditionStatus: 'False', tolerationSeconds: 30 * MIN, action: 'reboot', drainSeconds: 15 * MIN },
  { conditionType: 'KernelReady', conditionStatus: 'False', tolerationSeconds: 30 * MIN, action: 'reboot', drainSeconds: 15 * MIN },
  { conditionType: 'ContainerRuntimeReady', conditionStatus: 'False', tolerationSeconds: 30 * MIN, action: 'reboot', drainSeconds: 15 * MIN },
];

/** The policy a node condition falls under, if any. */
export function repairPolicyFor(type: string, status: string): RepairPolicy | undefined {
  return RepairPolicies.find((p) => p.conditionType === type && p.conditionStatus === status);
}
