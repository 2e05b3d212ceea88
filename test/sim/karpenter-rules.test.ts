import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/sim/kube/types';
import { karpenterStaticDrift } from './karpenter-rules';

const pool = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default', annotations },
});
const claim = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'default-abcde', labels: { 'karpenter.sh/nodepool': 'default' }, annotations },
  spec: { nodeClassRef: { name: 'default' } },
});

describe("Karpenter's hash and static drift rules (the model the way-back test uses)", () => {
  it('should call drifted a claim whose foreign hash sits at Karpenter\'s own version, as an autoscaler reusing "v3" would leave it', () => {
    const objects = {
      nodePools: [pool({ 'karpenter.sh/nodepool-hash': '111', 'karpenter.sh/nodepool-hash-version': 'v3' })],
      nodeClasses: [],
      nodeClaims: [claim({ 'karpenter.sh/nodepool-hash': '999', 'karpenter.sh/nodepool-hash-version': 'v3' })],
    };
    expect(karpenterStaticDrift(objects)).toEqual(['default-abcde']);
  });

  it('should re-stamp, not drift, a claim at another version, and leave an already drifted one drifted', () => {
    const other = { 'karpenter.sh/nodepool-hash': '999', 'karpenter.sh/nodepool-hash-version': 'nodewright-v1' };
    const drifted = { ...claim(other), status: { conditions: [{ type: 'Drifted', status: 'True' }] } };
    expect(karpenterStaticDrift({ nodePools: [pool(other)], nodeClasses: [], nodeClaims: [claim(other)] })).toEqual([]);
    expect(karpenterStaticDrift({ nodePools: [pool(other)], nodeClasses: [], nodeClaims: [drifted] })).toEqual(['default-abcde']);
  });
});
