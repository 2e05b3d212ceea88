import type { NodePool } from '../shared/core/model/karpenter';

export function nodePoolFor(name: string, requirements: NodePool['template']['requirements'] = [], weight = 0): NodePool {
  return {
    name,
    weight,
    template: {
      labels: {},
      annotations: {},
      taints: [],
      startupTaints: [],
      requirements,
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: 720 * 3600,
      terminationGracePeriod: null,
    },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 0, budgets: [{ nodes: '10%' }] },
    limits: {},
  };
}
