/**
 * How many CSI volumes a node of a type can attach, per driver. Today: the Amazon EBS CSI driver
 * (`ebs.csi.aws.com`), whose node plugin reports to the kubelet — and so to kube-scheduler via CSINode —
 * the type's attachment limit less the volumes the node itself uses and, where the limit is shared with
 * network interfaces, the ENIs beyond the first. The per-type limits come from the driver's generated table
 * (shared/catalog/ebs-volume-limits.json); the arithmetic here follows its documented rules.
 */
import type { EC2NodeClass } from '../model/karpenter';

export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';
/** In-tree plugin names the CSI migration translates to a CSI driver. */
export const MIGRATED_DRIVERS: Readonly<Record<string, string>> = { 'kubernetes.io/aws-ebs': EBS_CSI_DRIVER };

export interface EbsAttachments {
  /** Attachments the type allows (EBS volumes, and ENIs / instance-store volumes when shared). */
  max: number;
  /** True when ENIs count against the same limit (most Nitro types); false for dedicated EBS limits. */
  shared: boolean;
}

/**
 * ENIs a node has when the EBS node plugin computes its limit: the primary, plus the one the VPC CNI keeps
 * warm (WARM_ENI_TARGET=1, its default). More ENIs attached later do not lower the reported limit.
 */
const ENIS_AT_START = 2;

/** EBS volumes the node uses itself: its block device mappings (the root volume at least). */
export function nodeVolumes(nodeClass: EC2NodeClass | undefined): number {
  return Math.max(1, nodeClass?.blockDeviceMappings?.length ?? 0);
}

/** The EBS volumes a pod-facing CSI plugin may attach on such a node (never below 1, as the driver does). */
export function ebsVolumeLimit(a: EbsAttachments, ownVolumes: number, maxENIs: number): number {
  let available = a.max - ownVolumes;
  if (a.shared) available -= Math.min(ENIS_AT_START, Math.max(1, maxENIs)) - 1;
  return Math.max(1, available);
}
