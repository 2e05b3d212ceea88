import { describe, expect, it } from 'vitest';
import { nodeClaimFromKube, nodeClaimToKube } from '../../../shared/core/model/from-kube';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { fromSeconds } from '../../../shared/core/time';

const claim = (): NodeClaim => ({
  name: 'default-abcde',
  uid: 'c-1',
  labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large' },
  annotations: { 'karpenter.sh/nodepool-hash': '123', 'karpenter.sh/nodepool-hash-version': 'v3' },
  nodePool: 'default',
  spec: {
    taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
    startupTaints: [{ key: 'example.com/init', effect: 'NoExecute' }],
    requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'c5.large'], minValues: 2 }],
    resources: { requests: { cpu: 1500, memory: 3 * 2 ** 30, pods: 5 } },
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    expireAfter: 720 * 3600,
    terminationGracePeriod: 3600,
  },
  status: {
    nodeName: 'ip-10-0-0-1.ec2.internal',
    providerID: 'aws:///us-west-2a/i-0123',
    imageID: 'ami-1',
    capacity: { cpu: 2000, memory: 8 * 2 ** 30, pods: 29 },
    allocatable: { cpu: 1930, memory: 7 * 2 ** 30, pods: 29 },
    conditions: [
      { type: 'Launched', status: 'True', reason: 'Launched', lastTransitionTime: fromSeconds(1_740_898_408) },
      { type: 'Initialized', status: 'Unknown', message: 'waiting' },
    ],
  },
  creationTimestamp: fromSeconds(1_740_898_400),
  finalizers: ['karpenter.sh/termination'],
});

describe('NodeClaim mapping', () => {
  it('should write a karpenter.sh/v1 NodeClaim with formatted quantities, durations and RFC3339 times', () => {
    // Act
    const json = nodeClaimToKube(claim());

    // Assess
    expect(json.apiVersion).toBe('karpenter.sh/v1');
    expect(json.kind).toBe('NodeClaim');
    expect(json.metadata).toMatchObject({ name: 'default-abcde', finalizers: ['karpenter.sh/termination'], creationTimestamp: '2025-03-02T06:53:20Z' });
    expect(json.spec).toMatchObject({
      resources: { requests: { cpu: '1500m', memory: '3Gi', pods: '5' } },
      expireAfter: '720h',
      terminationGracePeriod: '1h',
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
    });
    const status = json.status as { conditions: Record<string, unknown>[] };
    expect(status.conditions[0]).toEqual({ type: 'Launched', status: 'True', reason: 'Launched', lastTransitionTime: '2025-03-02T06:53:28Z' });
  });

  it('should read back exactly what it wrote', () => {
    // Prepare
    const original = claim();

    // Act
    const roundTrip = nodeClaimFromKube(JSON.parse(JSON.stringify(nodeClaimToKube(original))));

    // Assess
    expect(roundTrip).toEqual(original);
  });

  it('should read a cluster NodeClaim with Date timestamps and default expireAfter', () => {
    // Prepare
    const json = {
      metadata: {
        name: 'x',
        labels: { 'karpenter.sh/nodepool': 'p' },
        creationTimestamp: new Date('2025-01-01T00:00:00Z'),
        deletionTimestamp: new Date('2025-01-01T01:00:00Z'),
      },
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'd' }, requirements: [], expireAfter: 'Never' },
      status: { conditions: [{ type: 'Registered', status: 'True', lastTransitionTime: new Date('2025-01-01T00:01:00Z') }] },
    };

    // Act
    const c = nodeClaimFromKube(json);

    // Assess
    expect(c.nodePool).toBe('p');
    expect(c.spec.expireAfter).toBeNull();
    expect(c.spec.terminationGracePeriod).toBeNull();
    expect(c.creationTimestamp).toBe(1_735_689_600_000);
    expect(c.deletionTimestamp).toBe(1_735_693_200_000);
    expect(c.status.conditions[0].lastTransitionTime).toBe(1_735_689_660_000);
  });
});
