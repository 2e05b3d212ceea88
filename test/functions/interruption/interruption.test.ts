import { describe, expect, it, vi } from 'vitest';
import { createHandler, type InterruptionHandlerDeps } from '../../../functions/interruption/interruption';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { disruptionIdOf, replacementClaimName } from '../../../shared/core/lifecycle';
import { eventBody, sqsEvent, sqsRecord } from '../../fixtures/events';
import { CLUSTER, demoCloud, FakeCluster, FakeWorkflows, RecordingLogger, fixedClock, instance, nodeClaim } from '../../fakes/interruption';

const OWNED = 'i-0b2c3d4e5f6a7b8c9';
const FOREIGN = 'i-0ffffffffffffffff';

const disruptInput = (reason: string, kind: string) =>
  expect.objectContaining({
    reason,
    candidates: [expect.objectContaining({ nodeClaimName: 'default-abcde' })],
    replacements: [],
    interruption: { kind, drainBy: expect.any(Number) },
  });

function setup(
  opts: {
    planReplacements?: InterruptionHandlerDeps['planReplacements'];
    launchReplacement?: InterruptionHandlerDeps['launchReplacement'];
    idempotentStarter?: boolean;
  } = {},
) {
  const cloud = demoCloud([
    instance(OWNED, { tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-abcde' } }),
    instance(FOREIGN, { tags: { Name: 'someone-else' } }),
  ]);
  const cluster = new FakeCluster([nodeClaim('default-abcde', { instanceId: OWNED, registered: true, nodeName: 'ip-10-0-1-5' })]);
  const workflows = new FakeWorkflows(opts.idempotentStarter);
  const state = new MemoryStateStore(fixedClock);
  const markUnavailable = vi.spyOn(state, 'markUnavailable');
  const logger = new RecordingLogger();
  const deps: InterruptionHandlerDeps = {
    cloud,
    cluster,
    workflows,
    store: state,
    clock: fixedClock,
    log: logger,
    clusterName: CLUSTER,
    ...(opts.planReplacements ? { planReplacements: opts.planReplacements } : {}),
    ...(opts.launchReplacement ? { launchReplacement: opts.launchReplacement } : {}),
  };
  return { cloud, cluster, workflows, state, markUnavailable, logger, handler: createHandler(deps) };
}

describe('interruption handler', () => {
  it('should drop a spot warning for a stray instance tagged with a claim whose providerID names another instance, never touching that instance', async () => {
    // Prepare: OWNED carries claim default-abcde's tag, but the claim's providerID names HEALTHY
    const HEALTHY = 'i-0aaaaaaaaaaaaaaaa';
    const { handler, cloud, cluster, workflows, logger } = setup();
    cloud.instances.set(
      HEALTHY,
      instance(HEALTHY, { tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-abcde' } }),
    );
    cluster.claims.set('default-abcde', nodeClaim('default-abcde', { instanceId: HEALTHY, registered: true, nodeName: 'ip-10-0-1-5' }));
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.attempts).toEqual([]);
    expect(cloud.deleted).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ message: 'dropping interruption message', fields: expect.objectContaining({ instanceId: OWNED }) }),
    );
  });

  it('should start exactly one disrupt execution (interruption mode) and mark the offering once when a spot warning is delivered three times', async () => {
    // Prepare
    const { handler, workflows, state, markUnavailable } = setup();
    const body = eventBody('spot-interruption-warning');
    // Act
    const responses = [
      await handler(sqsEvent(sqsRecord(body, 'm1'))),
      await handler(sqsEvent(sqsRecord(body, 'm2'))),
      await handler(sqsEvent(sqsRecord(body, 'm3'))),
    ];
    // Assess
    expect(responses).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(workflows.started).toEqual([
      { machine: 'disrupt', name: `interruption-${OWNED}-1e5527d7-bb36-4607-3370-4164db56a40e`, input: disruptInput('SpotInterruption', 'SpotInterruption') },
    ]);
    expect(markUnavailable).toHaveBeenCalledTimes(1);
    expect(await state.unavailableOfferings()).toEqual([
      { instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'spot', reason: 'SpotInterruption', expiresAt: fixedClock.now() + 180_000 },
    ]);
    expect(await state.auditLog({ kind: 'interruption' })).toHaveLength(1);
  });

  it('should mark the offering once even when Step Functions answers a running duplicate like a new start', async () => {
    // Prepare
    const { handler, workflows, state, markUnavailable, logger } = setup({ idempotentStarter: true });
    const body = eventBody('spot-interruption-warning');
    // Act
    for (const id of ['m1', 'm2', 'm3']) await handler(sqsEvent(sqsRecord(body, id)));
    // Assess
    expect(workflows.started).toHaveLength(1);
    expect(markUnavailable).toHaveBeenCalledTimes(1);
    expect(await state.auditLog({ kind: 'interruption' })).toHaveLength(1);
    expect(logger.messages('info').filter((m) => m === 'interruption message already handled')).toHaveLength(2);
  });

  it('should act once when the duplicates arrive in the same batch', async () => {
    // Prepare
    const { handler, workflows, markUnavailable } = setup();
    const body = eventBody('spot-interruption-warning');
    // Act
    const response = await handler(sqsEvent(sqsRecord(body, 'a'), sqsRecord(body, 'b'), sqsRecord(body, 'c')));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.started).toHaveLength(1);
    expect(workflows.attempts).toHaveLength(1);
    expect(markUnavailable).toHaveBeenCalledTimes(1);
  });

  it('should never touch a foreign instance and log that it dropped the message', async () => {
    // Prepare
    const { handler, workflows, markUnavailable, cloud, cluster, logger } = setup();
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning', { instanceId: FOREIGN }))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.attempts).toEqual([]);
    expect(markUnavailable).not.toHaveBeenCalled();
    expect(cloud.deleted).toEqual([]);
    expect(cluster.deletedClaims).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'dropping interruption message',
        fields: expect.objectContaining({ instanceId: FOREIGN, reason: 'instance is not owned by this cluster' }),
      }),
    );
  });

  it('should fail only the malformed record of a batch and still act on the others', async () => {
    // Prepare
    const { handler, workflows, logger } = setup();
    // Act
    const response = await handler(
      sqsEvent(
        sqsRecord('{"version":"0","id":', 'bad-json'),
        sqsRecord(
          JSON.stringify({ version: '0', id: 'x', source: 'aws.ec2', 'detail-type': 'EC2 Spot Instance Interruption Warning', detail: { 'instance-id': 42 } }),
          'bad-detail',
        ),
        sqsRecord(eventBody('spot-interruption-warning'), 'good'),
      ),
    );
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad-json' }, { itemIdentifier: 'bad-detail' }]);
    expect(workflows.started).toHaveLength(1);
    expect(logger.messages('error')).toEqual(['failed parsing interruption message', 'failed parsing interruption message']);
  });

  it('should report a batch made only of a malformed record as a failure without throwing', async () => {
    // Prepare
    const { handler } = setup();
    // Act
    const response = await handler(sqsEvent(sqsRecord('not json', 'only')));
    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'only' }] });
  });

  it('should drop unknown and filtered events without reading the cloud or starting anything', async () => {
    // Prepare
    const { handler, workflows, cloud, logger } = setup();
    // Act
    const response = await handler(
      sqsEvent(
        sqsRecord(eventBody('autoscaling-launch-successful')),
        sqsRecord(eventBody('instance-state-change-running')),
        sqsRecord(eventBody('health-issue-ebs')),
      ),
    );
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.attempts).toEqual([]);
    expect(cloud.listCalls).toBe(0);
    expect(logger.messages('info').filter((m) => m === 'dropping interruption message')).toHaveLength(3);
  });

  it('should only audit a rebalance recommendation', async () => {
    // Prepare
    const { handler, workflows, state } = setup();
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('rebalance-recommendation'))));
    // Assess
    expect(workflows.attempts).toEqual([]);
    expect(await state.auditLog({ kind: 'interruption' })).toEqual([
      expect.objectContaining({ action: 'observed', reason: 'RebalanceRecommendation', nodeClaims: ['default-abcde'] }),
    ]);
  });

  describe.each([
    ['ignore', 0, 0],
    ['pre-provision', 0, 1],
    ['drain', 1, 0],
  ] as const)('a rebalance recommendation under the pool policy %s', (policy, disrupts, launches) => {
    it('should follow the policy', async () => {
      // Prepare
      const launch = vi.fn(async () => {});
      const plan = vi.fn(async () => ({ nodeName: 'ip-10-0-1-5', moving: 1, replacements: [nodeClaim('default-rrrrr', {})], unschedulable: [] }));
      const { handler, workflows, cluster } = setup({ planReplacements: plan, launchReplacement: launch });
      cluster.nodePools = [{ name: 'default', rebalancePolicy: policy } as never];
      // Act
      await handler(sqsEvent(sqsRecord(eventBody('rebalance-recommendation'))));
      // Assess
      expect(workflows.started.filter((w) => w.machine === 'disrupt')).toHaveLength(disrupts);
      expect(launch).toHaveBeenCalledTimes(launches);
    });
  });

  it('should drain the owned instance of a scheduled change and leave the unknown one alone', async () => {
    // Prepare
    const { handler, workflows, markUnavailable } = setup();
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('health-scheduled-change'))));
    // Assess
    expect(workflows.started.map((s) => s.input)).toEqual([disruptInput('ScheduledChange', 'ScheduledChange')]);
    expect(markUnavailable).not.toHaveBeenCalled();
  });

  it('should find the claim of an already terminated instance by its tags', async () => {
    // Prepare
    const { handler, workflows, cloud, cluster } = setup();
    cloud.byId(OWNED)!.state = 'terminated';
    const body = eventBody('instance-state-change-stopping').replace('"stopping"', '"terminated"');
    // Act
    await handler(sqsEvent(sqsRecord(body)));
    // Assess: EC2 still shows a terminated instance, tags and all, for about an hour
    expect(cluster.snapshotCalls).toBe(0);
    expect(workflows.started.map((s) => s.input)).toEqual([disruptInput('InstanceStateChange:terminated', 'InstanceStateChange')]);
  });

  it('should find the claim through the NodeClaims when the instance carries no nodeclaim tag', async () => {
    // Prepare
    const { handler, workflows, cloud, cluster } = setup();
    cloud.byId(OWNED)!.tags = { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default' };
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'))));
    // Assess
    expect(cluster.snapshotCalls).toBe(0);
    expect(workflows.started.map((s) => s.input)).toEqual([disruptInput('SpotInterruption', 'SpotInterruption')]);
  });

  it('should start nothing for an owned instance that has no NodeClaim', async () => {
    // Prepare
    const { handler, workflows, cloud, logger } = setup();
    cloud.instances.set(
      'i-0c0c0c0c0c0c0c0c0',
      instance('i-0c0c0c0c0c0c0c0c0', { tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default' } }),
    );
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning', { instanceId: 'i-0c0c0c0c0c0c0c0c0' }))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.attempts).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'dropping interruption message',
        fields: expect.objectContaining({ reason: expect.stringContaining('no NodeClaim') }),
      }),
    );
  });

  it('should start nothing when the claim was already finalized by an earlier drain', async () => {
    // Prepare
    const { handler, workflows, cluster, logger } = setup();
    cluster.claims.clear();
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('instance-state-change-stopping').replace('"stopping"', '"terminated"'))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(workflows.attempts).toEqual([]);
    // The claim is gone, so the instance belongs to no claim (a tag alone does not make it the claim's).
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'dropping interruption message',
        fields: expect.objectContaining({ reason: 'instance has no NodeClaim; garbage collection reclaims it' }),
      }),
    );
  });

  it('should request the replacements before any eviction and give the drain 60 s of the 2-minute notice', async () => {
    // Prepare
    const replacement = nodeClaim('default-zzzzz', {});
    const plan = vi.fn(async () => ({ nodeName: 'ip-10-0-1-5', moving: 6, replacements: [replacement], unschedulable: [] }));
    const { handler, workflows, state } = setup({ planReplacements: plan });
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'))));
    // Assess
    expect(plan).toHaveBeenCalledWith(
      expect.objectContaining({ listPodsOnNode: expect.any(Function) }),
      expect.objectContaining({ name: 'default-abcde' }),
      '1e5527d7-bb36-4607-3370-4164db56a40e',
      expect.any(Number),
    );
    const input = workflows.started[0].input as { replacements: { name: string }[]; candidates: unknown[]; interruption: { drainBy: number } };
    // Named and marked from the disruption id, as ValidateDisruptInput names them (the execution's name decides it).
    const named = replacementClaimName('default', disruptionIdOf(workflows.started[0].name), 0);
    expect(input.replacements).toEqual([
      expect.objectContaining({
        name: named,
        annotations: expect.objectContaining({ 'nodewright.io/disruption-id': disruptionIdOf(workflows.started[0].name) }),
      }),
    ]);
    expect(input.candidates).toEqual([{ nodeClaimName: 'default-abcde', nodeName: 'ip-10-0-1-5' }]);
    expect(input.interruption.drainBy).toBe(Math.min(Date.parse(JSON.parse(eventBody('spot-interruption-warning')).time as string), fixedClock.now()) + 60_000);
    expect((await state.auditLog({ kind: 'interruption' }))[0].detail).toMatchObject({ replacements: [named], markedUnavailable: true });
  });

  it('should count the warning and the state change that follows as one interruption of the node', async () => {
    // Prepare
    const { handler, workflows, logger } = setup();
    // Act
    await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'), 'warning')));
    await handler(sqsEvent(sqsRecord(eventBody('instance-state-change-stopping').replace('"stopping"', '"shutting-down"'), 'state')));
    // Assess
    expect(workflows.started).toHaveLength(1);
    expect(logger.messages('info').filter((m) => m === 'initiating delete from interruption message')).toHaveLength(1);
    expect(logger.messages('info')).toContain('interruption message already handled');
  });

  it('should fail the record for redelivery when the execution cannot be started', async () => {
    // Prepare
    const { handler, workflows, markUnavailable } = setup();
    vi.spyOn(workflows, 'start').mockRejectedValueOnce(Object.assign(new Error('Rate exceeded'), { name: 'CloudProviderThrottledError' }));
    const body = eventBody('spot-interruption-warning');
    // Act
    const first = await handler(sqsEvent(sqsRecord(body, 'm1')));
    const retry = await handler(sqsEvent(sqsRecord(body, 'm1')));
    // Assess
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(retry.batchItemFailures).toEqual([]);
    expect(workflows.started).toHaveLength(1);
    expect(markUnavailable).toHaveBeenCalledTimes(1);
  });
});
