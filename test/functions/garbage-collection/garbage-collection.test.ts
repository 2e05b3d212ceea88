import { describe, expect, it, vi } from 'vitest';
import { createHandler } from '../../../functions/garbage-collection/garbage-collection';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import type { CloudInstance } from '../../../shared/core/ports';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import type { Node } from '../../../shared/core/model/kube';
import { CLUSTER, demoCloud, FakeCluster, FakeWorkflows, NOW, RecordingLogger, fixedClock, instance, node, nodeClaim } from '../../fakes/interruption';
import { epochMs } from '../../../shared/core/time';

const MIN = 60_000;

function setup(instances: CloudInstance[], claims: NodeClaim[] = [], nodes: Node[] = []) {
  const cloud = demoCloud(instances);
  const cluster = new FakeCluster(claims, nodes);
  const state = new MemoryStateStore(fixedClock);
  const logger = new RecordingLogger();
  return { cloud, cluster, state, logger, handler: createHandler({ cloud, cluster, store: state, clock: fixedClock, log: logger, clusterName: CLUSTER }) };
}

describe('garbage-collection handler', () => {
  it('should terminate an orphan instance after the grace period and delete its node', async () => {
    // Prepare
    const { handler, cloud, cluster, state } = setup(
      [instance('i-00000000000000001', { launchTime: epochMs(NOW - 45_000) }), instance('i-00000000000000002', { launchTime: epochMs(NOW - 5_000) })],
      [],
      [node('ip-10-0-0-1', 'i-00000000000000001')],
    );
    // Act
    const result = await handler();
    // Assess
    expect(cloud.deleted).toEqual(['i-00000000000000001']);
    expect(cluster.deletedNodes).toEqual(['ip-10-0-0-1']);
    expect(result).toEqual({
      actions: [{ type: 'terminateOrphanInstance', target: 'i-00000000000000001', outcome: 'done' }],
      failed: 0,
      deletions: [],
      staleTaintsRemoved: [],
    });
    expect(await state.auditLog({ kind: 'garbage-collection' })).toEqual([
      expect.objectContaining({ action: 'terminateOrphanInstance', nodes: ['ip-10-0-0-1'] }),
    ]);
  });

  it('should never terminate an instance the cloud provider does not list as ours', async () => {
    // Prepare
    const { handler, cloud } = setup([
      instance('i-00000000000000003', { tags: { Name: 'bastion' } }),
      instance('i-00000000000000004', { tags: { 'kubernetes.io/cluster/demo': 'owned', 'eks:nodegroup-name': 'system' } }),
    ]);
    // Act
    const result = await handler();
    // Assess
    expect(cloud.deleted).toEqual([]);
    expect(result.actions).toEqual([]);
  });

  it('should remove a claim and its node once its instance is confirmed gone', async () => {
    // Prepare
    const gone = instance('i-00000000000000005', { state: 'terminated' });
    const { handler, cluster } = setup(
      [gone],
      [nodeClaim('default-gone', { instanceId: 'i-00000000000000005', registered: true, nodeName: 'ip-10-0-0-5' })],
      [node('ip-10-0-0-5', 'i-00000000000000005', false)],
    );
    // Act
    const result = await handler();
    // Assess
    expect(result.actions).toEqual([{ type: 'removeClaimWithoutInstance', target: 'default-gone', outcome: 'done' }]);
    expect(cluster.deletedClaims).toEqual(['default-gone']);
    expect(cluster.deletedNodes).toEqual(['ip-10-0-0-5']);
  });

  it('should keep a claim whose instance the list missed but a direct lookup still finds', async () => {
    // Prepare
    const { handler, cloud, cluster } = setup(
      [instance('i-00000000000000006')],
      [nodeClaim('default-live', { instanceId: 'i-00000000000000006', registered: true })],
    );
    vi.spyOn(cloud, 'list').mockResolvedValueOnce([]);
    // Act
    const result = await handler();
    // Assess
    expect(result.actions).toEqual([{ type: 'removeClaimWithoutInstance', target: 'default-live', outcome: 'skipped' }]);
    expect(cluster.claims.has('default-live')).toBe(true);
  });

  it('should terminate the instance and delete a claim not registered within 15 minutes', async () => {
    // Prepare
    const { handler, cloud, cluster } = setup(
      [instance('i-00000000000000007', { launchTime: epochMs(NOW - 16 * MIN) })],
      [nodeClaim('default-stuck', { instanceId: 'i-00000000000000007', ageMs: 17 * MIN })],
    );
    // Act
    const result = await handler();
    // Assess
    expect(result.actions).toEqual([{ type: 'registrationTimeout', target: 'default-stuck', outcome: 'done' }]);
    expect(cloud.deleted).toEqual(['i-00000000000000007']);
    expect(cluster.deletedClaims).toEqual(['default-stuck']);
  });

  it('should leave a claim whose launch is still within its deadline untouched', async () => {
    // Prepare
    const { handler, cloud, cluster } = setup(
      [instance('i-00000000000000008', { launchTime: epochMs(NOW - 10 * MIN) })],
      [nodeClaim('default-booting', { instanceId: 'i-00000000000000008', ageMs: 10 * MIN }), nodeClaim('default-launching', { ageMs: 2 * MIN })],
    );
    // Act
    const result = await handler();
    // Assess
    expect(result.actions).toEqual([]);
    expect(cloud.deleted).toEqual([]);
    expect([...cluster.claims.keys()]).toEqual(['default-booting', 'default-launching']);
  });

  it('should report a failed action and still perform the others', async () => {
    // Prepare
    const { handler, cloud, logger } = setup([
      instance('i-00000000000000009', { launchTime: epochMs(NOW - MIN) }),
      instance('i-0000000000000000a', { launchTime: epochMs(NOW - MIN) }),
    ]);
    const realDelete = cloud.delete.bind(cloud);
    vi.spyOn(cloud, 'delete').mockImplementation(async (providerID) => {
      if (providerID.endsWith('i-00000000000000009')) throw new Error('Request limit exceeded');
      return realDelete(providerID);
    });
    // Act
    const result = await handler();
    // Assess
    expect(result.failed).toBe(1);
    expect(cloud.deleted).toEqual(['i-0000000000000000a']);
    expect(logger.messages('error')).toEqual(['garbage collection action failed']);
  });

  it('should start terminate for a NodeClaim being deleted (kubectl delete) and leave it to that workflow', async () => {
    // Prepare
    const deleted = { ...nodeClaim('default-gone', { instanceId: 'i-0000000000000000b', registered: true, nodeName: 'ip-10-0-0-11' }), deletionTimestamp: NOW };
    const cloud = demoCloud([instance('i-0000000000000000b')]);
    const cluster = new FakeCluster([deleted], [node('ip-10-0-0-11', 'i-0000000000000000b')]);
    const workflows = new FakeWorkflows();
    const handler = createHandler({
      cloud,
      cluster,
      store: new MemoryStateStore(fixedClock),
      clock: fixedClock,
      log: new RecordingLogger(),
      clusterName: CLUSTER,
      workflows,
    });
    // Act
    const result = await handler();
    // Assess
    expect(result).toEqual({ actions: [], failed: 0, deletions: [{ type: 'terminate', target: 'default-gone', outcome: 'started' }], staleTaintsRemoved: [] });
    expect(workflows.started).toEqual([
      { machine: 'terminate', name: `default-gone-deleted-${NOW / 1000}`, input: { nodeClaimName: 'default-gone', reason: 'Deleted' } },
    ]);
    expect(cloud.deleted).toEqual([]);
    expect(cluster.claims.has('default-gone')).toBe(true);
  });
});
