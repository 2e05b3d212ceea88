import { describe, expect, it } from 'vitest';
import { applyPodEventUpdates, podEventUpdates, PodsFingerprintAnnotation } from '../../../shared/core/disruption';
import type { ClusterSnapshot } from '../../../shared/core/ports';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { pod } from '../../fixtures/builders';
import { epochMs } from '../../../shared/core/time';

const claim = (annotations: Record<string, string> = {}): NodeClaim => ({
  name: 'default-abcde',
  labels: {},
  annotations,
  nodePool: 'default',
  spec: {
    taints: [],
    startupTaints: [],
    requirements: [],
    resources: { requests: {} },
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    expireAfter: null,
    terminationGracePeriod: null,
  },
  status: { nodeName: 'node-1', conditions: [] },
  creationTimestamp: epochMs(0),
  finalizers: [],
});
const snapshot = (c: NodeClaim, podNames: string[]): ClusterSnapshot => ({
  pods: podNames.map((name) => ({ ...pod({ name, cpu: '100m' }), nodeName: 'node-1', phase: 'Running' as const })),
  nodes: [],
  nodeClaims: [c],
  nodePools: [],
  nodeClasses: [],
  pdbs: [],
  daemonSets: [],
  persistentVolumes: [],
  persistentVolumeClaims: [],
  storageClasses: [],
});

describe('pod events for consolidateAfter', () => {
  it('should only remember the pods on the first sighting, then move lastPodEventTime when a pod leaves', () => {
    // Prepare
    const s1 = snapshot(claim(), ['a', 'b']);
    // Act
    const first = podEventUpdates(s1, epochMs(100_000));
    applyPodEventUpdates(s1, first);
    const same = podEventUpdates(snapshot(s1.nodeClaims[0], ['a', 'b']), epochMs(160_000));
    const left = podEventUpdates(snapshot(s1.nodeClaims[0], ['a']), epochMs(220_000));
    // Assess
    expect(first).toEqual([{ nodeClaim: 'default-abcde', fingerprint: expect.any(String) }]);
    expect(s1.nodeClaims[0].annotations[PodsFingerprintAnnotation]).toBe(first[0].fingerprint);
    expect(same).toEqual([]);
    expect(left).toEqual([{ nodeClaim: 'default-abcde', fingerprint: expect.any(String), lastPodEventTime: 220_000 }]);
  });
});
