import { describe, expect, it } from 'vitest';
import { createHandler as checkRegistration } from '../../../functions/launch/check-registration';
import { createHandler as initializeNode } from '../../../functions/launch/initialize-node';
import { fakes, node, nodeClaim } from '../../fakes/lifecycle';

const PID = 'aws:///eu-west-1a/i-0abc000000000001';

describe('checkRegistration and initializeNode handlers', () => {
  it('should report not registered until the node appears, then sync labels and taints onto it', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('gpu-abcde', {
      ...nodeClaim('gpu-abcde', { providerID: PID, startupTaints: [{ key: 'nvidia.com/gpu-driver', effect: 'NoSchedule' }] }),
    });
    const check = checkRegistration(f);
    const deadlineMs = f.clock.now() + 60_000;

    // Act
    const before = await check({ nodeClaimName: 'gpu-abcde', deadlineMs });
    f.cluster.nodes.set('n1', node('n1', { providerID: PID }));
    const after = await check({ nodeClaimName: 'gpu-abcde', deadlineMs });

    // Assess
    expect(before).toMatchObject({ registered: false, timedOut: false });
    expect(after).toMatchObject({ registered: true, nodeName: 'n1' });
    expect(f.cluster.nodes.get('n1')?.taints).toEqual([{ key: 'nvidia.com/gpu-driver', effect: 'NoSchedule' }]);
    expect(f.cluster.nodes.get('n1')?.labels['karpenter.sh/registered']).toBe('true');
    expect(f.log.lines.find((l) => l.message === 'registered nodeclaim')?.fields).toMatchObject({ nodeclaim: 'gpu-abcde', node: 'n1' });
  });

  it('should nominate the pods the claim was planned for onto its node before it lifts the unregistered taint', async () => {
    // Prepare: a claim planned for two pods (one written as a bare uid, by an older version: it cannot be named)
    const f = fakes();
    const claim = nodeClaim('default-abcde', { providerID: PID });
    claim.annotations = { 'nodewright.io/planned-pods': 'default/web-1/uid-1,shop/api-2/uid-2,uid-3' };
    f.cluster.claims.set(claim.name, claim);
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] }));

    // Act
    await checkRegistration(f)({ nodeClaimName: 'default-abcde', deadlineMs: f.clock.now() + 60_000 });

    // Assess: both named pods nominated, and before the node was patched
    const writes = f.cluster.writes.filter((w) => /^(nominatePod|patchNode )/.test(w));
    expect(writes).toEqual(['nominatePod default/web-1 n1', 'nominatePod shop/api-2 n1', expect.stringMatching(/^patchNode n1/)]);
  });

  it("should copy the claim's annotations (template ones and drift hashes) onto the node, but not nodewright's bookkeeping", async () => {
    // Prepare: Karpenter's registration assigns every NodeClaim annotation onto the Node
    const f = fakes();
    const claim = nodeClaim('default-abcde', { providerID: PID });
    claim.annotations = {
      'karpenter.sh/do-not-disrupt': 'true',
      'example.com/owner': 'team-a',
      'karpenter.sh/nodepool-hash': '123',
      'nodewright.io/disruption-id': 'd-1',
      'nodewright.io/pods-fingerprint': 'abc',
    };
    f.cluster.claims.set('default-abcde', claim);
    f.cluster.nodes.set('n1', node('n1', { providerID: PID }));
    f.cluster.nodes.get('n1')!.annotations = { 'node.alpha.kubernetes.io/ttl': '0' };

    // Act
    await checkRegistration(f)({ nodeClaimName: 'default-abcde', deadlineMs: f.clock.now() + 60_000 });

    // Assess
    expect(f.cluster.nodes.get('n1')?.annotations).toEqual({
      'node.alpha.kubernetes.io/ttl': '0',
      'karpenter.sh/do-not-disrupt': 'true',
      'example.com/owner': 'team-a',
      'karpenter.sh/nodepool-hash': '123',
    });
  });

  it('should make the NodeClaim an owner of its node, and find a node it already named after an interrupted registration', async () => {
    // Prepare: a registration that labelled the node registered and stopped before the claim's Registered condition
    const f = fakes();
    f.cluster.claims.set('default-abcde', { ...nodeClaim('default-abcde', { providerID: PID }), uid: 'claim-uid-1' });
    f.cluster.nodes.set('n1', node('n1', { providerID: PID }));
    f.cluster.nodes.set('other', node('other', { providerID: 'aws:///eu-west-1a/i-0abc000000000002', labels: { 'karpenter.sh/registered': 'true' } }));
    const check = checkRegistration(f);
    const deadlineMs = f.clock.now() + 60_000;
    f.cluster.patchNodeClaimStatus = async (name, status) => {
      f.cluster.claims.get(name)!.status.nodeName = status.nodeName ?? f.cluster.claims.get(name)!.status.nodeName;
      if (status.conditions) throw new Error('API server unavailable');
    };

    // Act
    const interrupted = await check({ nodeClaimName: 'default-abcde', deadlineMs }).catch((e: Error) => e.message);
    delete (f.cluster as { patchNodeClaimStatus?: unknown }).patchNodeClaimStatus;
    const resumed = await check({ nodeClaimName: 'default-abcde', deadlineMs });

    // Assess
    expect(interrupted).toBe('API server unavailable');
    expect(f.cluster.nodes.get('n1')?.labels['karpenter.sh/registered']).toBe('true');
    expect(resumed).toMatchObject({ registered: true, nodeName: 'n1' });
    expect(f.cluster.claims.get('default-abcde')?.status.conditions.find((c) => c.type === 'Registered')?.status).toBe('True');
    expect(f.cluster.nodes.get('n1')?.ownerReferences).toEqual([
      { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'default-abcde', uid: 'claim-uid-1', blockOwnerDeletion: true },
    ]);
  });

  it("should tag the registered node's instance with its Name and claim, keeping a Name the node class gave it, once", async () => {
    // Prepare: two launched instances, one already named by the node class's spec.tags
    const f = fakes();
    const PID2 = 'aws:///eu-west-1a/i-0abc000000000002';
    for (const [pid, tags] of [
      [PID, {}],
      [PID2, { Name: 'team-a-node' }],
    ] as const) {
      const instanceId = pid.split('/').pop()!;
      f.cloud.instances.set(pid, {
        instanceId,
        providerID: pid,
        instanceType: 'm5.large',
        zone: 'eu-west-1a',
        capacityType: 'on-demand',
        launchTime: f.clock.now(),
        state: 'running',
        tags: { ...tags },
      });
    }
    f.cluster.claims.set('default-aaaaa', nodeClaim('default-aaaaa', { providerID: PID }));
    f.cluster.claims.set('default-bbbbb', nodeClaim('default-bbbbb', { providerID: PID2 }));
    f.cluster.nodes.set('ip-10-0-0-1.eu-west-1.compute.internal', node('ip-10-0-0-1.eu-west-1.compute.internal', { providerID: PID }));
    f.cluster.nodes.set('ip-10-0-0-2.eu-west-1.compute.internal', node('ip-10-0-0-2.eu-west-1.compute.internal', { providerID: PID2 }));
    // Act
    for (const name of ['default-aaaaa', 'default-bbbbb']) await checkRegistration(f)({ nodeClaimName: name, deadlineMs: f.clock.now() + 60_000 });
    // Assess
    expect(f.cloud.instances.get(PID)?.tags).toEqual({ Name: 'ip-10-0-0-1.eu-west-1.compute.internal', 'karpenter.sh/nodeclaim': 'default-aaaaa' });
    expect(f.cloud.instances.get(PID2)?.tags).toEqual({ Name: 'team-a-node', 'karpenter.sh/nodeclaim': 'default-bbbbb' });
    expect(f.cluster.claims.get('default-aaaaa')?.annotations).toMatchObject({
      'karpenter.k8s.aws/tagged': 'true',
      'compatibility.karpenter.k8s.aws/cluster-name-tagged': 'true',
    });
  });

  it('should register the node even when its instance cannot be tagged, and leave the claim unmarked', async () => {
    // Prepare: no such instance any more (EC2 answers NotFound)
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID }));
    // Act
    const out = await checkRegistration(f)({ nodeClaimName: 'default-abcde', deadlineMs: f.clock.now() + 60_000 });
    // Assess
    expect(out).toMatchObject({ registered: true, nodeName: 'n1' });
    expect(f.cluster.claims.get('default-abcde')?.annotations['karpenter.k8s.aws/tagged']).toBeUndefined();
    expect(f.log.lines.find((l) => l.message === 'failed tagging the instance of a registered nodeclaim')?.fields).toMatchObject({
      nodeclaim: 'default-abcde',
      node: 'n1',
    });
  });

  it('should report a timeout once the registration deadline has passed', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID }));

    // Act
    const result = await checkRegistration(f)({ nodeClaimName: 'default-abcde', deadlineMs: f.clock.now() });

    // Assess
    expect(result).toMatchObject({ registered: false, timedOut: true });
  });

  it('should wait for startup taints to be removed before marking the node initialized', async () => {
    // Prepare
    const f = fakes();
    const startup = { key: 'nvidia.com/gpu-driver', effect: 'NoSchedule' as const };
    f.cluster.claims.set('gpu-abcde', nodeClaim('gpu-abcde', { providerID: PID, nodeName: 'n1', startupTaints: [startup] }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, taints: [startup] }));
    const init = initializeNode(f);
    const input = { nodeClaimName: 'gpu-abcde', nodeName: 'n1', deadlineMs: f.clock.now() + 60_000 };

    // Act
    const waiting = await init(input);
    f.cluster.nodes.get('n1')!.taints = [];
    const done = await init(input);

    // Assess
    expect(waiting).toMatchObject({ initialized: false, waitingFor: 'startup taint nvidia.com/gpu-driver' });
    expect(done.initialized).toBe(true);
    expect(f.cluster.nodes.get('n1')?.labels['karpenter.sh/initialized']).toBe('true');
    expect(f.cluster.claims.get('gpu-abcde')?.status.conditions.find((c) => c.type === 'Initialized')?.status).toBe('True');
  });

  it('should fail with DeadlineExceededError when the node is still not ready after the deadline', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-abcde', nodeClaim('default-abcde', { providerID: PID, nodeName: 'n1' }));
    f.cluster.nodes.set('n1', node('n1', { providerID: PID, ready: false, taints: [] }));

    // Act
    const attempt = initializeNode(f)({ nodeClaimName: 'default-abcde', nodeName: 'n1', deadlineMs: f.clock.now() - 1 });

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'DeadlineExceededError' });
  });
});
