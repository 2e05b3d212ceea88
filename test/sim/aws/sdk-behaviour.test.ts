/**
 * The simulator puts back what aws-sdk-client-mock skips: the client's own retry strategy around each call
 * and the HTTP handler's request timeout, on virtual time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { awsClientConfig } from '../../../shared/adapters/aws/client-config';
import { installSdkBehaviour } from '../../../shared/sim/aws/sdk-behaviour';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { FaultPlan, type FaultSpec } from '../../../shared/sim/faults';

const undo: (() => void)[] = [];
afterEach(() => {
  while (undo.length) undo.pop()!();
});

/** Runs `fn` as an activity, advancing virtual time until it settles. */
async function run<T>(clock: VirtualClock, fn: () => Promise<T>): Promise<{ out?: T; err?: unknown; ms: number }> {
  const start = clock.now();
  let done: { out?: T; err?: unknown } | undefined;
  void clock.track('call', fn).then(
    (out) => {
      done = { out };
    },
    (err: unknown) => {
      done = { err };
    },
  );
  for (let i = 0; i < 1000 && !done; i++) {
    await settle(clock);
    if (!done) clock.advance(Number.MAX_SAFE_INTEGER);
  }
  return { ...done, ms: clock.now() - start };
}

function setup(faults: FaultSpec[], answer: () => unknown = () => ({ Reservations: [] })) {
  const clock = new VirtualClock(0);
  const mock = mockClient(EC2Client);
  let calls = 0;
  mock.on(DescribeInstancesCommand).callsFake(async () => {
    calls++;
    return answer();
  });
  undo.push(() => mock.restore());
  const plan = new FaultPlan(faults, 1, () => clock.elapsedSeconds());
  undo.push(installSdkBehaviour({ clock, plan, seed: 1, clients: [{ service: 'ec2', cls: EC2Client }] }));
  return { clock, plan, calls: () => calls, client: new EC2Client(awsClientConfig('us-east-1')) };
}

describe('the SDK around simulated AWS calls', () => {
  it('should retry a throttled call as the SDK does (3 attempts in all) and succeed when an attempt gets through', async () => {
    // Prepare: every request throttled during the first 0.2 s
    const s = setup([{ at: 0, for: 0.2, target: 'ec2', kind: 'throttle' }]);
    // Act
    const r = await run(s.clock, () => s.client.send(new DescribeInstancesCommand({})));
    // Assess: the answer came from the service once the throttling window passed, after backoff on virtual time
    expect(r.err).toBeUndefined();
    expect(r.out).toMatchObject({ Reservations: [] });
    expect(s.plan.injected.length).toBeGreaterThanOrEqual(1);
    expect(s.plan.injected.length).toBeLessThanOrEqual(2);
    expect(r.ms).toBeGreaterThan(0);
  });

  it("should give up after the strategy's 3 attempts with the service's own error", async () => {
    // Prepare
    const s = setup([{ at: 0, for: 600, target: 'ec2', kind: 'error' }]);
    // Act
    const r = await run(s.clock, () => s.client.send(new DescribeInstancesCommand({})));
    // Assess
    expect(r.err).toMatchObject({ name: 'InternalError' });
    expect(s.plan.injected).toHaveLength(3);
    expect(s.calls()).toBe(0);
  });

  it('should not retry a client error (an answer, e.g. InsufficientInstanceCapacity)', async () => {
    // Prepare
    const s = setup([], () => {
      throw Object.assign(new Error('no capacity'), { name: 'InsufficientInstanceCapacity', $fault: 'client', $metadata: { httpStatusCode: 400 } });
    });
    // Act
    const r = await run(s.clock, () => s.client.send(new DescribeInstancesCommand({})));
    // Assess
    expect(r.err).toMatchObject({ name: 'InsufficientInstanceCapacity' });
    expect(s.calls()).toBe(1);
  });

  it("should fail a hung request at the client's request timeout (15 s) as TimeoutError and retry it", async () => {
    // Prepare: the endpoint answers nothing for 20 s
    const s = setup([{ at: 0, for: 20, target: 'ec2', kind: 'hang' }]);
    // Act
    const r = await run(s.clock, () => s.client.send(new DescribeInstancesCommand({})));
    // Assess: attempt 1 hung 15 s, attempt 2 (≈ 15 s) hung until 30 s, attempt 3 answered
    expect(r.err).toBeUndefined();
    expect(s.plan.injected.map((f) => f.kind)).toEqual(['hang', 'hang']);
    expect(r.ms).toBeGreaterThanOrEqual(30_000);
    expect(s.calls()).toBe(1);
  });

  it('should apply a request whose answer is lost (timeout fault) and repeat it on retry, as an ambiguous timeout does', async () => {
    // Prepare
    const s = setup([{ at: 0, for: 10, target: 'ec2', kind: 'timeout' }]);
    // Act
    const r = await run(s.clock, () => s.client.send(new DescribeInstancesCommand({})));
    // Assess: the service saw the request twice (applied, then the retry after the 15 s timeout)
    expect(r.err).toBeUndefined();
    expect(s.calls()).toBe(2);
    expect(r.ms).toBeGreaterThanOrEqual(15_000);
  });
});
