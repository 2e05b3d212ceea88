import { describe, expect, it } from 'vitest';
import { createHandler as terminateInstance } from '../../../functions/terminate/terminate-instance';
import { createHandler as finalizeNodeClaim } from '../../../functions/terminate/finalize-node-claim';
import { createHandler as taintNode } from '../../../functions/terminate/taint-node';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';
import { epochMs } from '../../../shared/core/time';

const PID = 'aws:///eu-west-1a/i-0abc000000000009';

describe('termination handlers', () => {
  it("should terminate the claim's own instance (its providerID), never another instance named in the target", async () => {
    // Prepare: STRAY carries the claim's tag; the claim's providerID is PID
    const f = fakes();
    const STRAY = 'aws:///eu-west-1a/i-0abc00000000000a';
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID }));
    for (const pid of [PID, STRAY])
      f.cloud.instances.set(pid, {
        instanceId: pid.slice(pid.lastIndexOf('/') + 1),
        providerID: pid,
        instanceType: 'm5.large',
        zone: 'eu-west-1a',
        capacityType: 'on-demand',
        launchTime: epochMs(0),
        state: 'running',
        tags: { 'karpenter.sh/nodeclaim': 'default-abcde' },
      });

    // Act
    const wrong = terminateInstance(f)({ nodeClaimName: 'default-abcde', providerID: STRAY, reason: 'Manual' });
    const right = await terminateInstance(f)({ nodeClaimName: 'default-abcde', reason: 'Manual' });

    // Assess
    await expect(wrong).rejects.toMatchObject({ name: 'InstanceNotOwnedError' });
    expect(right).toMatchObject({ terminated: true, providerID: PID });
    expect(f.cloud.calls).toEqual([`delete ${PID}`]);
    expect(f.cloud.instances.get(STRAY)?.state).toBe('running');
    // The claim says its instance is terminating (as Karpenter's termination does) before the delete
    expect(f.cluster.claims.get('default-abcde')?.status.conditions).toContainEqual(expect.objectContaining({ type: 'InstanceTerminating', status: 'True' }));
  });

  it('should treat an instance that is already gone as terminated', async () => {
    // Prepare
    const f = fakes();

    // Act
    const result = await terminateInstance(f)({ nodeClaimName: 'default-abcde', providerID: PID });

    // Assess
    expect(result).toMatchObject({ terminated: true, providerID: PID });
  });

  it('should let the cloud provider refuse an instance this cluster does not own', async () => {
    // Prepare
    const f = fakes();
    f.cloud.instances.set(PID, {
      instanceId: 'i-0abc000000000009',
      providerID: PID,
      instanceType: 'm5.large',
      zone: 'eu-west-1a',
      capacityType: 'on-demand',
      launchTime: epochMs(0),
      state: 'running',
      tags: { foreign: 'true' },
    });

    // Act
    const attempt = terminateInstance(f)({ nodeClaimName: 'default-abcde', providerID: PID });

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'InstanceNotOwnedError' });
    expect(f.cloud.instances.get(PID)?.state).toBe('running');
  });

  it('should fix the drain deadline from terminationGracePeriod once, even when the step is retried', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID, nodeName: 'n1', tgp: 600 }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [] }));
    const taint = taintNode(f);

    // Act
    const first = await taint({ nodeClaimName: 'default-abcde', nodeName: 'n1' });
    f.clock.advance(60_000);
    const retried = await taint({ nodeClaimName: 'default-abcde', nodeName: 'n1' });

    // Assess
    expect(first.drainDeadlineMs).toBe(Date.UTC(2026, 0, 1) + 600_000);
    expect(retried.drainDeadlineMs).toBe(first.drainDeadlineMs);
    expect(first.forceAtDeadline).toBe(true);
    expect(f.cluster.nodes.get('n1')?.taints).toEqual([{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }]);
    expect(f.cluster.nodes.get('n1')?.labels['node.kubernetes.io/exclude-from-external-load-balancers']).toBe('true');
  });

  it("should bound node repair's drain from its start: the smaller of terminationGracePeriod and the repair's bound, forced then", async () => {
    // Prepare: a claim without terminationGracePeriod (its drain would wait for PDBs forever), and one with 2 minutes.
    const f = fakes();
    f.cluster.claims.set('default-aaaaa', nodeClaim('default-aaaaa', { providerID: PID, nodeName: 'n1' }));
    f.cluster.claims.set('default-bbbbb', nodeClaim('default-bbbbb', { providerID: PID, nodeName: 'n2', tgp: 120 }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [] }));
    f.cluster.nodes.set('n2', node('n2', { providerID: PID, taints: [] }));
    const taint = taintNode(f);
    // Act
    const unbounded = await taint({ nodeClaimName: 'default-aaaaa', nodeName: 'n1', reason: 'Unhealthy', drainSeconds: 300 });
    const shorter = await taint({ nodeClaimName: 'default-bbbbb', nodeName: 'n2', reason: 'Unhealthy', drainSeconds: 300 });
    // Assess
    expect(unbounded).toMatchObject({ drainDeadlineMs: Date.UTC(2026, 0, 1) + 300_000, forceAtDeadline: true });
    expect(shorter).toMatchObject({ drainDeadlineMs: Date.UTC(2026, 0, 1) + 120_000, forceAtDeadline: true });
    expect(f.cluster.claims.get('default-aaaaa')?.annotations['karpenter.sh/nodeclaim-termination-timestamp']).toBe(
      new Date(Date.UTC(2026, 0, 1) + 300_000).toISOString(),
    );
  });

  it('should delete node and claim, removing the claim finalizer, and record the termination', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID, nodeName: 'n1' }));
    f.cluster.nodes.set('n1', node('n1'));

    // Act
    const result = await finalizeNodeClaim(f)({ nodeClaimName: 'default-abcde', nodeName: 'n1', reason: 'Expired' });

    // Assess
    expect(result).toEqual({ nodeClaimName: 'default-abcde', nodeName: 'n1', finalized: true });
    expect(f.cluster.writes).toEqual(['deleteNode n1', 'patchNodeClaimMetadata default-abcde', 'deleteNodeClaim default-abcde']);
    expect((await f.store.auditLog())[0]).toMatchObject({ kind: 'termination', action: 'terminated', reason: 'Expired' });
  });

  it('should reject a target with neither claim nor node', async () => {
    // Prepare
    const f = fakes();

    // Act
    const attempt = terminateInstance(f)({ reason: 'Manual' });

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: 'ExecutionInputInvalidError',
      message: expect.stringContaining('nodeClaimName or nodeName is required'),
    });
  });
});
