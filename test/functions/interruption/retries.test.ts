/**
 * A failed interruption message is retried within its 2-minute notice (issue #28): the handler hides a failed
 * record for 10 s instead of the queue's visibility timeout, and reports a record it is still waiting for before
 * its own timeout as failed rather than losing the whole batch to a timeout.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createHandler } from '../../../functions/interruption/interruption';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { eventBody, sqsEvent, sqsRecord } from '../../fixtures/events';
import { CLUSTER, demoCloud, FakeCluster, FakeWorkflows, RecordingLogger, fixedClock, instance, nodeClaim } from '../../fakes/interruption';

const OWNED = 'i-0b2c3d4e5f6a7b8c9';

function setup() {
  const cloud = demoCloud([
    instance(OWNED, { tags: { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-abcde' } }),
  ]);
  const cluster = new FakeCluster([nodeClaim('default-abcde', { instanceId: OWNED, registered: true, nodeName: 'ip-10-0-1-5' })]);
  const workflows = new FakeWorkflows();
  const queue = { changeVisibility: vi.fn(async (_handles: readonly string[], _seconds: number) => {}) };
  const log = new RecordingLogger();
  const handler = createHandler({
    cloud,
    cluster,
    workflows,
    store: new MemoryStateStore(fixedClock),
    clock: fixedClock,
    log,
    clusterName: CLUSTER,
    queue,
  });
  return { handler, workflows, queue, log };
}

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

describe('interruption retries', () => {
  it('should hide a failed record for 10 s, so a spot warning is retried within its notice, and leave the others alone', async () => {
    // Prepare
    const { handler, workflows, queue } = setup();
    vi.spyOn(workflows, 'start').mockRejectedValueOnce(Object.assign(new Error('Rate exceeded'), { name: 'CloudProviderThrottledError' }));
    // Act
    const response = await handler(
      sqsEvent(sqsRecord(eventBody('spot-interruption-warning'), 'warning'), sqsRecord(eventBody('instance-state-change-running'), 'noise')),
    );
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'warning' }]);
    expect(queue.changeVisibility).toHaveBeenCalledExactlyOnceWith(['rh-warning'], 10);
  });

  it('should report a record still running 3 s before the function times out as failed, and retry it in 10 s', async () => {
    // Prepare: StartExecution never answers; the clock's sleep ends at once (the deadline has come)
    const { handler, workflows, queue, log } = setup();
    vi.spyOn(workflows, 'start').mockReturnValue(new Promise(() => {}));
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'), 'slow')), context(30_000));
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'slow' }]);
    expect(queue.changeVisibility).toHaveBeenCalledExactlyOnceWith(['rh-slow'], 10);
    expect(log.messages('warn')).toContain('interruption messages failed and will be redelivered');
  });

  it('should still answer when the retry delay cannot be set: the record comes back after the visibility timeout', async () => {
    // Prepare
    const { handler, workflows, queue, log } = setup();
    vi.spyOn(workflows, 'start').mockRejectedValueOnce(new Error('boom'));
    queue.changeVisibility.mockRejectedValueOnce(new Error('AccessDenied'));
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning'), 'm1')));
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(log.messages('warn')).toContain('could not shorten the retry delay of failed interruption messages; they come back after the visibility timeout');
  });
});
