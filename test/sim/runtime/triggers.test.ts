import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { DynamoTable } from '../../../shared/sim/aws/dynamo-table';
import { Ec2World } from '../../../shared/sim/aws/ec2-world';
import { installSimulatedAws } from '../../../shared/sim/aws/services';
import { SimulatedStepFunctions } from '../../../shared/sim/runtime/step-functions';
import { SimulatedQueue, startSchedules, type InvocationRecord } from '../../../shared/sim/runtime/triggers';

async function runUntil(clock: VirtualClock, untilMs: number): Promise<void> {
  for (;;) {
    await settle(clock);
    if (!clock.advance(untilMs)) break;
  }
}

describe('simulated triggers', () => {
  it('should redeliver failed queue records after the visibility timeout, then dead-letter them', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const deliveries: { t: number; ids: string[] }[] = [];
    const invoke = async (_key: string, event: unknown) => {
      const records = (event as { Records: { messageId: string; body: string }[] }).Records;
      deliveries.push({ t: clock.now() / 1000, ids: records.map((r) => JSON.parse(r.body).detail['instance-id'] as string) });
      return { batchItemFailures: records.filter((r) => r.body.includes('i-bad')).map((r) => ({ itemIdentifier: r.messageId })) };
    };
    const queue = new SimulatedQueue(
      clock,
      invoke,
      { functionKey: 'interruption', queueArn: 'arn:aws:sqs:us-east-1:0:q', region: 'us-east-1', visibilityTimeoutSeconds: 45, maxReceiveCount: 3 },
      () => undefined,
    );
    // Act
    queue.sendEvent({ 'detail-type': 'EC2 Instance Rebalance Recommendation', source: 'aws.ec2', detail: { 'instance-id': 'i-good' } });
    queue.sendEvent({ 'detail-type': 'EC2 Instance Rebalance Recommendation', source: 'aws.ec2', detail: { 'instance-id': 'i-bad' } });
    await runUntil(clock, 600_000);
    // Assess
    expect(deliveries).toEqual([
      { t: 0, ids: ['i-good', 'i-bad'] },
      { t: 45, ids: ['i-bad'] },
      { t: 90, ids: ['i-bad'] },
    ]);
    expect(queue.deadLetters).toHaveLength(1);
    expect(queue.delivered).toBe(1);
  });

  describe('the interruption queue as SQS and the Lambda event source run it', () => {
    const rebalance = (id: string) => ({ 'detail-type': 'EC2 Instance Rebalance Recommendation', source: 'aws.ec2', detail: { 'instance-id': id } });
    const base = { functionKey: 'interruption', queueArn: 'arn:aws:sqs:us-east-1:0:q', region: 'us-east-1' };
    type Records = { Records: { messageId: string; receiptHandle: string; body: string }[] };
    const idsOf = (event: unknown) => (event as Records).Records.map((r) => JSON.parse(r.body).detail['instance-id'] as string);

    it('should receive a failed record again when the function shortens its visibility, not after the whole timeout', async () => {
      // Prepare
      const clock = new VirtualClock(0);
      const deliveries: number[] = [];
      const invoke = async (_key: string, event: unknown) => {
        deliveries.push(clock.now() / 1000);
        const [r] = (event as Records).Records;
        queue.changeVisibility(r.receiptHandle, 10);
        return { batchItemFailures: [{ itemIdentifier: r.messageId }] };
      };
      const queue = new SimulatedQueue(clock, invoke, { ...base, visibilityTimeoutSeconds: 180, maxReceiveCount: 4 }, () => undefined);
      // Act
      queue.sendEvent(rebalance('i-bad'));
      await runUntil(clock, 600_000);
      // Assess
      expect(deliveries).toEqual([0, 10, 20, 30]);
      expect(queue.deadLetters).toHaveLength(1);
    });

    it('should delete a message at the end of its retention period, handled or not', async () => {
      // Prepare
      const clock = new VirtualClock(0);
      const deliveries: number[] = [];
      const invoke = async (_key: string, event: unknown) => {
        deliveries.push(clock.now() / 1000);
        return { batchItemFailures: (event as Records).Records.map((r) => ({ itemIdentifier: r.messageId })) };
      };
      const queue = new SimulatedQueue(clock, invoke, { ...base, visibilityTimeoutSeconds: 45, maxReceiveCount: 10, retentionSeconds: 60 }, () => undefined);
      // Act
      queue.sendEvent(rebalance('i-bad'));
      await runUntil(clock, 600_000);
      // Assess
      expect(deliveries).toEqual([0, 45]);
      expect(queue.expired).toHaveLength(1);
      expect(queue.deadLetters).toHaveLength(0);
    });

    it('should handle at most maximumConcurrency batches at once', async () => {
      // Prepare
      const clock = new VirtualClock(0);
      const starts: { t: number; n: number }[] = [];
      const invoke = async (_key: string, event: unknown) => {
        starts.push({ t: clock.now() / 1000, n: idsOf(event).length });
        await clock.sleep(5_000);
        return { batchItemFailures: [] };
      };
      const queue = new SimulatedQueue(clock, invoke, { ...base, batchSize: 10, maximumConcurrency: 2 }, () => undefined);
      // Act
      for (let i = 0; i < 25; i++) queue.sendEvent(rebalance(`i-${i}`));
      await runUntil(clock, 600_000);
      // Assess
      expect(starts).toEqual([
        { t: 0, n: 10 },
        { t: 0, n: 10 },
        { t: 5, n: 5 },
      ]);
      expect(queue.delivered).toBe(25);
    });

    it('should let a partial batch wait up to the batching window for more messages', async () => {
      // Prepare
      const clock = new VirtualClock(0);
      const batches: { t: number; ids: string[] }[] = [];
      const invoke = async (_key: string, event: unknown) => {
        batches.push({ t: clock.now() / 1000, ids: idsOf(event) });
        return { batchItemFailures: [] };
      };
      const queue = new SimulatedQueue(clock, invoke, { ...base, batchSize: 10, maximumBatchingWindowSeconds: 1 }, () => undefined);
      // Act
      queue.sendEvent(rebalance('i-first'));
      clock.after(500, () => queue.sendEvent(rebalance('i-second')));
      await runUntil(clock, 600_000);
      // Assess
      expect(batches).toEqual([{ t: 1, ids: ['i-first', 'i-second'] }]);
    });
  });

  it('should fire schedules on virtual time and skip a tick while the previous run lasts', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const records: InvocationRecord[] = [];
    const starts: number[] = [];
    const invoke = async () => {
      starts.push(clock.now() / 1000);
      await clock.sleep(90_000);
    };
    const fn = {
      key: 'provisioner',
      handler: 'x.handler',
      modulePath: 'x',
      exportName: 'handler',
      timeoutSeconds: 90,
      memorySizeMb: 512,
      schedules: [{ everySeconds: 60 }],
      sqs: false,
    };
    // Act
    startSchedules(clock, [fn], invoke, 'us-east-1', (r) => records.push(r));
    await runUntil(clock, 300_000);
    // Assess
    expect(starts).toEqual([60, 180, 300]);
    expect(records.every((r) => r.ok)).toBe(true);
  });

  it('should answer StartExecution like Step Functions: same name and input while running is the same execution', async () => {
    // Prepare
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const arns = {
      launch: 'arn:aws:states:us-east-1:000000000000:stateMachine:l',
      terminate: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
      disrupt: 'arn:aws:states:us-east-1:000000000000:stateMachine:d',
    };
    const invoked: string[] = [];
    const sfnState = new SimulatedStepFunctions(clock, arns, async (key) => {
      invoked.push(key);
      await clock.sleep(1000);
      if (key === 'validateTerminateInput') throw Object.assign(new Error('bad input'), { name: 'ExecutionInputInvalidError' });
      return {};
    });
    const world = new Ec2World({ region: 'us-east-1', zones: ['us-east-1a'], clusterName: 'sim', seed: 1, clock, catalog: loadCatalog() });
    const restore = installSimulatedAws(() => ({
      world,
      table: new DynamoTable(),
      cluster: { name: 'sim', endpoint: 'https://127.0.0.1:1', caData: '', version: '1.31' },
      stepFunctions: sfnState,
    }));
    const sfn = new SFNClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
    try {
      // Act
      const first = await sfn.send(new StartExecutionCommand({ stateMachineArn: arns.terminate, name: 'n1', input: '{"nodeName":"a"}' }));
      const same = await sfn.send(new StartExecutionCommand({ stateMachineArn: arns.terminate, name: 'n1', input: '{"nodeName":"a"}' }));
      const other = sfn.send(new StartExecutionCommand({ stateMachineArn: arns.terminate, name: 'n1', input: '{"nodeName":"b"}' }));
      await expect(other).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
      await runUntil(clock, clock.now() + 60_000);
      const after = sfn.send(new StartExecutionCommand({ stateMachineArn: arns.terminate, name: 'n1', input: '{"nodeName":"a"}' }));
      // Assess
      expect(same.executionArn).toBe(first.executionArn);
      await expect(after).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
      expect(sfnState.executions).toHaveLength(1);
      expect(sfnState.executions[0]).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError', tasks: ['validateTerminateInput'] });
      expect(invoked).toEqual(['validateTerminateInput']);
    } finally {
      restore();
    }
  });
});
