/**
 * CapacityBuffer (`autoscaling.x-k8s.io/v1beta1`, the API Cluster Autoscaler and Karpenter share): headroom kept as
 * pods that do not exist — the autoscaler plans nodes for them as if they were pending — so real pods start without
 * waiting for a node.
 */
import type { StatusCondition } from './karpenter';
import type { Pod } from './kube';
import type { ResourceList } from './resources';

/** The default (and only) strategy Karpenter and Cluster Autoscaler implement: capacity kept running. */
export const ActiveCapacity = 'buffer.x-k8s.io/active-capacity';

/**
 * nodewright's strategy (Karpenter and Cluster Autoscaler ignore it): the chunks are kept as *stopped* instances that
 * joined the cluster once, started when pods are pending (docs/scheduling.md#standby-capacity).
 */
export const StandbyCapacity = 'nodewright.io/standby-capacity';

export interface CapacityBuffer {
  namespace: string;
  name: string;
  uid?: string;
  generation?: number;
  /** A PodTemplate in the buffer's namespace: the shape of one chunk. */
  podTemplateRef?: string;
  /** A workload with a scale subresource (Deployment, ReplicaSet, StatefulSet): its pod template, and `percentage` of its replicas. */
  scalableRef?: { apiGroup?: string; kind: string; name: string };
  replicas?: number;
  percentage?: number;
  /** Total requests the buffer may hold (cpu millicores, memory bytes …). */
  limits?: ResourceList;
  provisioningStrategy: string;
  /** status.conditions and status.replicas as last written. */
  observedConditions?: StatusCondition[];
  observedReplicas?: number;
}

/** A buffer with what its references resolved to (read by the adapter): the chunk's pod, or why it could not be read. */
export interface ResolvedBuffer {
  buffer: CapacityBuffer;
  /** The chunk's pod (template labels, requests, scheduling constraints). */
  template?: Pod;
  /** The scalableRef's current replicas. */
  scalableReplicas?: number;
  /** Why the references could not be resolved: ReadyForProvisioning=False with this reason and message. */
  unresolved?: { reason: 'PodTemplateNotFound' | 'ScalableRefNotFound' | 'ResolutionFailed'; message: string };
}
