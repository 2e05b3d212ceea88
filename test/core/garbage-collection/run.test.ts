/**
 * One garbage-collection run against the port fakes: it never loses a node whose NodeClaim it cannot read or has
 * not seen yet, tolerates EC2's eventual consistency, and reads only what it needs.
 */
import { describe, expect, it, vi } from 'vitest';
import { runGarbageCollection } from '../../../shared/core/garbage-collection/run';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { NodeClaimNotFoundError } from '../../../shared/core/errors';
import type { CloudInstance } from '../../../shared/core/ports';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import type { Node } from '../../../shared/core/model/kube';
import { CLUSTER, demoCloud, FakeCluster, NOW, RecordingLogger, fixedClock, instance, node, nodeClaim } from '../../fakes/interruption';
import { epochMs } from '../../../shared/core/time';

const SEC = 1000;
const MIN = 60 * SEC;
const owned = { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'eks:eks-cluster-name': 'demo' };

function setup(instances: CloudInstance[], claims: NodeClaim[] = [], nodes: Node[] = []) {
  const cloud = demoCloud(instances);
  const cluster = new FakeCluster(claims, nodes);
  const log = new RecordingLogger();
  const run = () => runGarbageCollection({ cloud, cluster, store: new MemoryStateStore(fixedClock), clock: fixedClock, log, clusterName: CLUSTER });
  return { cloud, cluster, log, run };
}

/** A claim launched `launchedAgoMs` ago on `instanceId`, not registered (its node has not joined yet). */
function launchedClaim(name: string, instanceId: string, launchedAgoMs: number): NodeClaim {
  const c = nodeClaim(name, { instanceId, ageMs: launchedAgoMs + 2 * SEC });
  c.status.conditions = c.status.conditions.map((x) => (x.type === 'Launched' ? { ...x, lastTransitionTime: epochMs(NOW - launchedAgoMs) } : x));
  return c;
}

describe('runGarbageCollection', () => {
  it('should never terminate an instance whose NodeClaim exists but cannot be read, and report the claim and what failed to parse', async () => {
    // Prepare: default-old was stored under a schema this version rejects; its node runs pods.
    const { run, cloud, cluster, log } = setup(
      [instance('i-00000000000000001', { tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-old' } })],
      [],
      [node('ip-10-0-0-1', 'i-00000000000000001')],
    );
    const reason = 'spec.requirements[0].operator: unsupported operator "Matches"';
    cluster.unreadableClaims.set('default-old', reason);

    // Act
    const result = await run();

    // Assess
    expect(cloud.deleted).toEqual([]);
    expect(cluster.deletedNodes).toEqual([]);
    expect(result.actions).toEqual([{ type: 'terminateOrphanInstance', target: 'i-00000000000000001', outcome: 'refused' }]);
    expect(log.lines.filter((e) => e.level === 'warn').map((e) => [e.message, e.fields.nodeclaim, e.fields.reason])).toContainEqual([
      'nodeclaim exists but cannot be read; keeping its instance',
      'default-old',
      reason,
    ]);
    expect(cluster.events).toEqual([
      `NodeClaim/default-old NodeClaimValidationFailed: NodeClaim cannot be read by this version, so its instance i-00000000000000001 is kept: ${reason}`,
    ]);
  });

  it("should not terminate an instance whose claim the list missed but a GET by the instance's tag finds (created since, or still launching)", async () => {
    // Prepare: the instance carries its claim's name; the claim already names it (young) or has no providerID yet (in flight).
    const { run, cloud, cluster } = setup([
      instance('i-00000000000000002', { launchTime: epochMs(NOW - 45 * SEC), tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-young' } }),
      instance('i-00000000000000003', { launchTime: epochMs(NOW - 45 * SEC), tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-inflight' } }),
    ]);
    const young = launchedClaim('default-young', 'i-00000000000000002', 44 * SEC);
    const inflight = nodeClaim('default-inflight', { ageMs: 50 * SEC });
    const listObjects = cluster.listObjects.bind(cluster);
    vi.spyOn(cluster, 'listObjects').mockImplementation(async (kinds) => {
      const listed = await listObjects(kinds);
      cluster.claims.set(young.name, young);
      cluster.claims.set(inflight.name, inflight);
      return listed;
    });

    // Act
    const result = await run();

    // Assess
    expect(cloud.deleted).toEqual([]);
    expect(result.actions.map((a) => a.outcome)).toEqual(['skipped', 'skipped']);
  });

  it('should still reclaim an instance whose tagged claim is gone, or names another instance', async () => {
    // Prepare
    const { run, cloud } = setup(
      [
        instance('i-00000000000000004', { launchTime: epochMs(NOW - MIN), tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-deleted' } }),
        instance('i-00000000000000005', { launchTime: epochMs(NOW - MIN), tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-other' } }),
        instance('i-00000000000000006', { tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-other' } }),
      ],
      [nodeClaim('default-other', { instanceId: 'i-00000000000000006', registered: true })],
    );

    // Act
    await run();

    // Assess
    expect(cloud.deleted.sort()).toEqual(['i-00000000000000004', 'i-00000000000000005']);
  });

  it('should keep a freshly launched claim whose instance EC2 does not list or know by id yet (DescribeInstances lags CreateFleet)', async () => {
    // Prepare: launched 40 s ago, past the 30 s grace; the list misses the instance and DescribeInstances by id
    // answers InvalidInstanceID.NotFound, as EC2 does for up to minutes after CreateFleet.
    const { run, cloud, cluster } = setup([], [launchedClaim('default-fresh', 'i-00000000000000007', 40 * SEC)]);
    vi.spyOn(cloud, 'get').mockRejectedValue(new NodeClaimNotFoundError('DescribeInstances i-00000000000000007: InvalidInstanceID.NotFound'));

    // Act
    const result = await run();

    // Assess
    expect(cluster.deletedClaims).toEqual([]);
    expect(cluster.claims.has('default-fresh')).toBe(true);
    expect(result.actions.filter((a) => a.outcome === 'done')).toEqual([]);
  });

  it('should remove a launched claim once EC2 reports its instance terminated, or has not known it for longer than the registration timeout', async () => {
    // Prepare
    const { run, cloud, cluster } = setup(
      [instance('i-00000000000000008', { state: 'shutting-down' }), instance('i-0000000000000000b', { state: 'terminated' })],
      [
        launchedClaim('default-reclaimed', 'i-00000000000000008', 40 * SEC),
        launchedClaim('default-terminated', 'i-0000000000000000b', 40 * SEC),
        launchedClaim('default-unknown', 'i-00000000000000009', 15 * MIN),
      ],
    );
    vi.spyOn(cloud, 'list').mockResolvedValue([]);

    // Act
    await run();

    // Assess
    expect(cluster.deletedClaims.sort()).toEqual(['default-reclaimed', 'default-terminated', 'default-unknown']);
  });

  it('should read only NodeClaims, Nodes, NodePools and EC2NodeClasses — never the whole cluster', async () => {
    // Prepare
    const { run, cluster } = setup(
      [instance('i-0000000000000000a', { tags: { ...owned, 'karpenter.sh/nodeclaim': 'default-a' } })],
      [nodeClaim('default-a', { instanceId: 'i-0000000000000000a', registered: true })],
    );

    // Act
    await run();

    // Assess
    expect(cluster.snapshotCalls).toBe(0);
    expect(cluster.listed).toEqual([['nodes', 'nodeClaims', 'nodePools', 'nodeClasses']]);
  });
});
