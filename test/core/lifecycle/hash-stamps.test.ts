import { describe, expect, it } from 'vitest';
import { reconcileHashStamps } from '../../../shared/core/lifecycle/hash-stamps';
import { NodeClassHashVersion, NodePoolHashVersion, nodeClassHash, nodePoolHash } from '../../../shared/core/model/hash';
import { fakes, nodeClaim } from '../../fakes/lifecycle';

const POOL_HASH = 'karpenter.sh/nodepool-hash';
const CLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';

describe('reconcileHashStamps', () => {
  it("should record each NodePool's and EC2NodeClass's hash on it, and write nothing once they are recorded", async () => {
    // Prepare
    const f = fakes();

    // Act
    const first = await reconcileHashStamps(f, await f.cluster.snapshot());
    const again = await reconcileHashStamps(f, await f.cluster.snapshot());

    // Assess
    expect(first).toEqual(['NodePool/default', 'EC2NodeClass/default']);
    expect(f.cluster.nodePools[0].recordedHash).toEqual({ hash: nodePoolHash(f.cluster.nodePools[0]), version: NodePoolHashVersion });
    expect(f.cluster.nodeClasses[0].recordedHash).toEqual({ hash: nodeClassHash(f.cluster.nodeClasses[0]), version: NodeClassHashVersion });
    expect(again).toEqual([]);
  });

  it('should re-stamp the claims of an older hash version, not drifted ones, after nodewright changed its hash', async () => {
    // Prepare: the pool and class recorded an older version, as their claims did.
    const f = fakes();
    f.cluster.nodePools[0].recordedHash = { hash: 'old', version: 'v2' };
    f.cluster.nodeClasses[0].recordedHash = { hash: 'old', version: 'v5' };
    const old = (name: string, drifted = false) => ({
      ...nodeClaim(name, { conditions: drifted ? [{ type: 'Drifted', status: 'True' }] : [] }),
      annotations: { [POOL_HASH]: 'old', [`${POOL_HASH}-version`]: 'v2', [CLASS_HASH]: 'old', [`${CLASS_HASH}-version`]: 'v5' },
    });
    f.cluster.claims.set('default-aaaaa', old('default-aaaaa'));
    f.cluster.claims.set('default-bbbbb', old('default-bbbbb', true));

    // Act
    await reconcileHashStamps(f, await f.cluster.snapshot());

    // Assess
    expect(f.cluster.claims.get('default-aaaaa')?.annotations).toEqual({
      [POOL_HASH]: nodePoolHash(f.cluster.nodePools[0]),
      [`${POOL_HASH}-version`]: NodePoolHashVersion,
      [CLASS_HASH]: nodeClassHash(f.cluster.nodeClasses[0]),
      [`${CLASS_HASH}-version`]: NodeClassHashVersion,
    });
    expect(f.cluster.claims.get('default-bbbbb')?.annotations[POOL_HASH]).toBe('old');
  });

  it("should re-stamp the claims a running Karpenter launched (its hashes at its versions) with nodewright's, so adopting them drifts none", async () => {
    // Prepare: the pool and class as Karpenter's hash controllers left them, and one of its claims; one claim with no version.
    const f = fakes();
    f.cluster.nodePools[0].recordedHash = { hash: '6821555240594823858', version: 'v3' };
    f.cluster.nodeClasses[0].recordedHash = { hash: '11937521203981245071', version: 'v6' };
    const karpenters = {
      ...nodeClaim('default-x7k2p'),
      annotations: {
        [POOL_HASH]: '6821555240594823858',
        [`${POOL_HASH}-version`]: 'v3',
        [CLASS_HASH]: '11937521203981245071',
        [`${CLASS_HASH}-version`]: 'v6',
      },
    };
    f.cluster.claims.set('default-x7k2p', karpenters);
    f.cluster.claims.set('default-nover', { ...nodeClaim('default-nover'), annotations: { [POOL_HASH]: 'older' } });

    // Act
    await reconcileHashStamps(f, await f.cluster.snapshot());

    // Assess
    for (const name of ['default-x7k2p', 'default-nover'])
      expect(f.cluster.claims.get(name)?.annotations).toMatchObject({
        [POOL_HASH]: nodePoolHash(f.cluster.nodePools[0]),
        [`${POOL_HASH}-version`]: NodePoolHashVersion,
      });
    expect(f.cluster.claims.get('default-x7k2p')?.annotations[`${CLASS_HASH}-version`]).toBe(NodeClassHashVersion);
    expect([NodePoolHashVersion, NodeClassHashVersion]).not.toContain('v3');
    expect([NodePoolHashVersion, NodeClassHashVersion]).not.toContain('v6');
  });

  it('should keep the hashes an older nodewright wrote under version v3 (its own hash), so a drift rollout under way goes on after the upgrade', async () => {
    // Prepare: the pool as the older nodewright stamped it — its current FNV hash at "v3" — and two of its claims: one
    // launched from the current template, one from an older one (drifted, not replaced yet).
    const f = fakes();
    const current = nodePoolHash(f.cluster.nodePools[0]);
    f.cluster.nodePools[0].recordedHash = { hash: current, version: 'v3' };
    const claim = (name: string, hash: string) => ({ ...nodeClaim(name), annotations: { [POOL_HASH]: hash, [`${POOL_HASH}-version`]: 'v3' } });
    f.cluster.claims.set('default-fresh', claim('default-fresh', current));
    f.cluster.claims.set('default-stale', claim('default-stale', '1234567890'));

    // Act
    await reconcileHashStamps(f, await f.cluster.snapshot());

    // Assess
    expect(f.cluster.claims.get('default-fresh')?.annotations).toMatchObject({ [POOL_HASH]: current, [`${POOL_HASH}-version`]: NodePoolHashVersion });
    expect(f.cluster.claims.get('default-stale')?.annotations).toMatchObject({ [POOL_HASH]: '1234567890', [`${POOL_HASH}-version`]: NodePoolHashVersion });
    expect(f.cluster.nodePools[0].recordedHash).toEqual({ hash: current, version: NodePoolHashVersion });
  });
});
