import { describe, expect, it } from 'vitest';
import { cloudDrift } from '../../../shared/core/lifecycle/disruption-drift';
import type { CloudInstance, CloudProvider, ClusterSnapshot } from '../../../shared/core/ports';
import type { EC2NodeClass, NodeClaim } from '../../../shared/core/model/karpenter';
import { epochMs } from '../../../shared/core/time';
import { FakeCloud, fakes, nodeClaim, nodeClass } from '../../fakes/lifecycle';

const instance = (n: number, state: CloudInstance['state'] = 'running'): CloudInstance => ({
  instanceId: `i-${String(n).padStart(8, '0')}`,
  providerID: `aws:///us-east-1a/i-${String(n).padStart(8, '0')}`,
  instanceType: 'c5.large',
  zone: 'us-east-1a',
  capacityType: 'on-demand',
  imageId: n === 7 ? 'ami-old' : 'ami-new',
  launchTime: epochMs(0),
  state,
  tags: { 'karpenter.sh/nodepool': 'default' },
});

describe('cloud drift of a pass', () => {
  it('should read the instances of every claim in one batch, not one DescribeInstances per claim, and skip terminated ones', async () => {
    // Prepare: 300 launched claims, one of them on a terminated instance, and one whose instance the batch does not show
    const f = fakes();
    const instances = Array.from({ length: 300 }, (_, n) => instance(n, n === 3 ? 'terminated' : 'running'));
    const cloud = new FakeCloud(instances.slice(0, 299));
    const seen: (CloudInstance | undefined)[] = [];
    (cloud as CloudProvider).isDrifted = async (_claim: NodeClaim, _cls: EC2NodeClass, known?: CloudInstance) => {
      seen.push(known);
      return known?.imageId === 'ami-old' ? 'AMIDrift' : undefined;
    };
    const claims = instances.map((i, n) => nodeClaim(`claim-${n}`, { providerID: i.providerID, nodeName: `node-${n}` }));
    const snapshot = { ...(await f.cluster.snapshot()), nodeClaims: claims, nodeClasses: [nodeClass()] } as ClusterSnapshot;
    // Act
    const drifted = await cloudDrift({ ...f, cloud }, snapshot, new Map());
    // Assess: one batch read; 298 answered from it, 1 asked on its own (not in the batch), the terminated one not at all
    expect(cloud.describeCalls).toHaveLength(1);
    expect(seen.filter((i) => i !== undefined)).toHaveLength(298);
    expect(seen.filter((i) => i === undefined)).toHaveLength(1);
    expect(drifted).toEqual({ 'claim-7': 'AMIDrift' });
  });
});
