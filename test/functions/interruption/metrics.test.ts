/** Karpenter's interruption metrics as the interruption function records them (docs/metrics.md). */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/interruption/interruption';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { eventBody, sqsEvent, sqsRecord } from '../../fixtures/events';
import { RecordingMetrics } from '../../fakes/lifecycle';
import { CLUSTER, demoCloud, FakeCluster, FakeWorkflows, RecordingLogger, fixedClock, instance, nodeClaim } from '../../fakes/interruption';

const OWNED = 'i-0b2c3d4e5f6a7b8c9';

function setup() {
  const cloud = demoCloud([
    instance(OWNED, { tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-abcde' } }),
  ]);
  const claim = nodeClaim('default-abcde', { instanceId: OWNED, registered: true, nodeName: 'ip-10-0-1-5' });
  claim.labels['karpenter.sh/capacity-type'] = 'spot';
  const metrics = new RecordingMetrics();
  const handler = createHandler({
    cloud,
    cluster: new FakeCluster([claim]),
    workflows: new FakeWorkflows(),
    store: new MemoryStateStore(fixedClock),
    clock: fixedClock,
    log: new RecordingLogger(),
    clusterName: CLUSTER,
    metrics,
  });
  return { handler, metrics };
}

describe('interruption metrics', () => {
  it('should count every message received by type and every one handled, and the nodeclaim disrupted once, when a spot warning comes three times', async () => {
    // Prepare
    const { handler, metrics } = setup();
    const body = eventBody('spot-interruption-warning');
    // Act
    for (const id of ['m1', 'm2', 'm3']) await handler(sqsEvent(sqsRecord(body, id)));
    // Assess
    expect(metrics.total('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' })).toBe(3);
    expect(metrics.total('karpenter_interruption_deleted_messages_total')).toBe(3);
    expect(metrics.matching('karpenter_nodeclaims_disrupted_total').map((r) => r.labels)).toEqual([
      { reason: 'spot_interrupted', nodepool: 'default', capacity_type: 'spot' },
    ]);
  });

  it('should observe how long a message waited on the queue, from its SentTimestamp', async () => {
    // Prepare: sent 42 s before it is handled
    const { handler, metrics } = setup();
    const record = sqsRecord(eventBody('spot-interruption-warning'));
    record.attributes.SentTimestamp = String(fixedClock.now() - 42_000);
    // Act
    await handler(sqsEvent(record));
    // Assess
    expect(metrics.matching('karpenter_interruption_message_queue_duration_seconds').map((r) => r.value)).toEqual([42]);
  });

  it('should not count a message it could not read as handled: it goes back to the queue', async () => {
    // Prepare
    const { handler, metrics } = setup();
    // Act
    const response = await handler(sqsEvent(sqsRecord('{"not": "an EventBridge event"', 'bad')));
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
    expect(metrics.total('karpenter_interruption_deleted_messages_total')).toBe(0);
  });
});
