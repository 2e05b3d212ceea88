import { describe, expect, it } from 'vitest';
import { reconcileStalledClaims } from '../../../shared/core/lifecycle';
import { fakes, nodeClaim } from '../../fakes/lifecycle';
import { addSeconds, epochMs } from '../../../shared/core/time';

describe('claims that were never launched', () => {
  it('should start the launch of a claim left unlaunched for 30 s (the provisioner died before StartExecution), and only once', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-aaaaa', { ...nodeClaim('default-aaaaa'), creationTimestamp: addSeconds(f.clock.now(), -40) });
    // Act
    await reconcileStalledClaims(f, await f.cluster.snapshot());
    await reconcileStalledClaims(f, await f.cluster.snapshot());
    // Assess
    expect(f.workflows.started).toEqual([{ machine: 'launch', name: 'default-aaaaa', input: { nodeClaimName: 'default-aaaaa' } }]);
  });

  it('should delete a claim still unlaunched after 2 minutes so its pods are planned again, and leave young, launched or answered claims alone', async () => {
    // Prepare
    const f = fakes();
    const now = f.clock.now();
    f.cluster.claims.set('default-stale', { ...nodeClaim('default-stale'), creationTimestamp: addSeconds(now, -150) });
    f.cluster.claims.set('default-young', { ...nodeClaim('default-young'), creationTimestamp: addSeconds(now, -5) });
    f.cluster.claims.set('default-up', {
      ...nodeClaim('default-up', {
        providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
        conditions: [{ type: 'Launched', status: 'True', lastTransitionTime: epochMs(0) }],
      }),
      creationTimestamp: addSeconds(now, -900),
    });
    f.cluster.claims.set('default-ice', {
      ...nodeClaim('default-ice', { conditions: [{ type: 'Launched', status: 'False', lastTransitionTime: epochMs(0) }] }),
      creationTimestamp: addSeconds(now, -900),
    });
    // Act
    const actions = await reconcileStalledClaims(f, await f.cluster.snapshot());
    // Assess
    expect(actions).toEqual([{ type: 'delete', nodeClaim: 'default-stale', ageSeconds: 150 }]);
    expect(f.cluster.writes).toContain('deleteNodeClaim default-stale');
    expect(f.workflows.started).toEqual([]);
  });
});
