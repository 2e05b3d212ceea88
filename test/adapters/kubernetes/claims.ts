import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { epochMs } from '../../../shared/core/time';

/** A normalized NodeClaim as the provisioner would create it. */
export function nodeClaim(name: string, over: Partial<NodeClaim> = {}): NodeClaim {
  return {
    name,
    labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large' },
    annotations: {},
    nodePool: 'default',
    spec: {
      taints: [],
      startupTaints: [],
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
      resources: { requests: { cpu: 1500, memory: 2 * 2 ** 30 } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: 720 * 3600,
      terminationGracePeriod: null,
    },
    status: { conditions: [] },
    creationTimestamp: epochMs(0),
    finalizers: ['karpenter.sh/termination'],
    ...over,
  };
}
