/**
 * What the interruption function reads (issue #28): one DescribeInstances by the batch's instance ids finds which
 * instances are nodewright's; an event about any other instance costs no Kubernetes read; an owned one costs reads
 * by name (its NodeClaim from the instance's claim tag, its Node for a state change), never the whole cluster.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/interruption/interruption';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { eventBody, sqsEvent, sqsRecord } from '../../fixtures/events';
import { CLUSTER, demoCloud, FakeCluster, FakeWorkflows, RecordingLogger, fixedClock, instance, node, nodeClaim } from '../../fakes/interruption';

const OWNED = 'i-0b2c3d4e5f6a7b8c9';
const OTHER = 'i-0a0a0a0a0a0a0a0a0';
const FOREIGN = 'i-0ffffffffffffffff';
const UNKNOWN = 'i-0eeeeeeeeeeeeeeee';
const ownedTags = (claim?: string) => ({
  'kubernetes.io/cluster/demo': 'owned',
  'karpenter.sh/nodepool': 'default',
  ...(claim ? { 'karpenter.sh/nodeclaim': claim } : {}),
});

function setup() {
  const cloud = demoCloud([
    instance(OWNED, { tags: ownedTags('default-abcde') }),
    instance(OTHER, { tags: ownedTags('default-fghij') }),
    instance(FOREIGN, { tags: { Name: 'someone-else', 'kubernetes.io/cluster/demo': 'owned' } }),
  ]);
  const fake = new FakeCluster(
    [
      nodeClaim('default-abcde', { instanceId: OWNED, registered: true, nodeName: 'ip-10-0-1-5' }),
      nodeClaim('default-fghij', { instanceId: OTHER, registered: true, nodeName: 'ip-10-0-1-6' }),
    ],
    [node('ip-10-0-1-5', OWNED), node('ip-10-0-1-6', OTHER)],
  );
  // Every call the handler makes on the cluster, by method and argument.
  const kubeReads: string[] = [];
  const cluster = new Proxy(fake, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        kubeReads.push(`${String(key)}${args.length ? ` ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}` : ''}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const workflows = new FakeWorkflows();
  const handler = createHandler({
    cloud,
    cluster,
    workflows,
    store: new MemoryStateStore(fixedClock),
    clock: fixedClock,
    log: new RecordingLogger(),
    clusterName: CLUSTER,
  });
  return { cloud, fake, kubeReads, workflows, handler };
}

describe('what the interruption function reads', () => {
  it('should make no Kubernetes request for events about instances nodewright does not own', async () => {
    // Prepare: a managed-node-group instance (cluster tag, no NodePool tag) and one EC2 does not know
    const { handler, cloud, kubeReads, workflows } = setup();
    const stopping = (id: string) => eventBody('instance-state-change-stopping', { instanceId: id, id: `evt-${id}` });
    // Act
    const response = await handler(sqsEvent(sqsRecord(stopping(FOREIGN)), sqsRecord(eventBody('spot-interruption-warning', { instanceId: UNKNOWN }))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(kubeReads).toEqual([]);
    expect(cloud.listCalls).toBe(0);
    expect(cloud.describeCalls).toEqual([{ instanceIds: [FOREIGN, UNKNOWN] }]);
    expect(workflows.attempts).toEqual([]);
  });

  it("should find the batch's owned instances with one DescribeInstances by their ids", async () => {
    // Prepare
    const { handler, cloud, workflows } = setup();
    // Act
    await handler(
      sqsEvent(
        sqsRecord(eventBody('spot-interruption-warning')),
        sqsRecord(eventBody('spot-interruption-warning', { instanceId: OTHER, id: 'evt-other' })),
        sqsRecord(eventBody('instance-state-change-stopping', { instanceId: FOREIGN, id: 'evt-foreign' })),
      ),
    );
    // Assess
    expect(cloud.describeCalls).toEqual([{ instanceIds: [OWNED, OTHER, FOREIGN] }]);
    expect(cloud.listCalls).toBe(0);
    expect(workflows.started.map((w) => (w.input as { candidates: { nodeClaimName: string }[] }).candidates[0].nodeClaimName).sort()).toEqual([
      'default-abcde',
      'default-fghij',
    ]);
  });

  it("should read a spot warning's NodeClaim by the name its instance's tag gives, once, and nothing else", async () => {
    // Prepare
    const { handler, kubeReads, workflows } = setup();
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'))));
    // Assess
    expect(workflows.started).toHaveLength(1);
    expect(kubeReads).toEqual(['getNodeClaim default-abcde']);
  });

  it('should read the node of a state change by name, to see whether a workflow already takes it away', async () => {
    // Prepare
    const { handler, kubeReads, fake, workflows } = setup();
    fake.nodes.get('ip-10-0-1-5')!.taints = [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }];
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('instance-state-change-stopping'))));
    // Assess
    expect(kubeReads).toEqual(['getNodeClaim default-abcde', 'getNode ip-10-0-1-5']);
    expect(workflows.attempts).toEqual([]);
  });

  it('should take the claim tag of a claim still launching (no providerID yet) only when no other live instance carries it', async () => {
    // Prepare
    const { handler, fake, cloud, workflows } = setup();
    fake.claims.set('default-abcde', nodeClaim('default-abcde', {}));
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'), 'alone')));
    cloud.instances.set('aws:///us-west-2a/i-0c0c0c0c0c0c0c0c0', instance('i-0c0c0c0c0c0c0c0c0', { tags: ownedTags('default-abcde') }));
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning', { id: 'evt-2' }), 'copied')));
    // Assess
    expect(cloud.describeCalls.filter((q) => 'nodeClaim' in q)).toEqual([{ nodeClaim: 'default-abcde' }, { nodeClaim: 'default-abcde' }]);
    expect(workflows.started).toHaveLength(1);
  });

  it('should list the NodeClaims, never the cluster, only for an owned instance that carries no claim tag', async () => {
    // Prepare
    const { handler, kubeReads, cloud, workflows } = setup();
    cloud.byId(OWNED)!.tags = ownedTags();
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'))));
    // Assess
    expect(kubeReads).toEqual(['listNodeClaims', 'getNodeClaim default-abcde']);
    expect(workflows.started).toHaveLength(1);
  });
});
