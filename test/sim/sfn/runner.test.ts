import { describe, expect, it } from 'vitest';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { AslNotRunnableLocallyError, localFunctions, runLocalExecution, type AslDefinition, type AslState, type Retrier } from '../../../shared/sim/sfn';
import { FakeClock, fakes } from '../../fakes/lifecycle';

const task = (functionKey: string, retry: Retrier[], next?: string): AslState => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: { 'Fn::GetAtt': [functionKey, 'Arn'] }, 'Payload.$': '$' },
  OutputPath: '$.Payload',
  Retry: retry,
  ...(next ? { Next: next } : { End: true }),
});

const BOOM_RETRY: Retrier[] = [{ ErrorEquals: ['Boom'], IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 3 }];
const FLAKY: AslDefinition = { StartAt: 'Flaky', States: { Flaky: task('flaky', BOOM_RETRY) } };
const boom = () => Object.assign(new Error('boom'), { name: 'Boom' });

/** Fails `failures` times with Boom, then answers; records the clock at each attempt. */
function flaky(clock: { now(): number }, failures: number) {
  const at: number[] = [];
  return {
    at,
    invoke: async () => {
      at.push(clock.now());
      if (at.length <= failures) throw boom();
      return { ok: true };
    },
  };
}

/** Runs `fn` as an activity of the virtual clock, moving time on whenever everything waits on it. */
async function onVirtualTime<T>(clock: VirtualClock, fn: () => Promise<T>): Promise<T> {
  let done = false;
  const result = clock.track('test', fn).finally(() => {
    done = true;
  });
  for (;;) {
    await settle(clock);
    if (done) return result;
    if (!clock.advance(clock.now() + 3_600_000)) throw new Error(`stalled: ${clock.busy().join(', ')}`);
  }
}

describe('the local Step Functions runner', () => {
  it("should wait each Retry interval on the run's clock: two failures with IntervalSeconds 2, BackoffRate 2 end at t = 6 s", async () => {
    // Prepare
    const clock = new FakeClock(0);
    const fn = flaky(clock, 2);

    // Act
    const run = await runLocalExecution('launch', {}, { definition: FLAKY, invoke: fn.invoke, clock });

    // Assess
    expect(run).toMatchObject({ status: 'SUCCEEDED', output: { ok: true }, tasks: ['flaky', 'flaky', 'flaky'], transitions: 3 });
    expect(fn.at).toEqual([0, 2000, 6000]);
    expect(clock.now()).toBe(6000);
  });

  it('should retry at once when a test asks for instant retries, and fail with the error once MaxAttempts are spent', async () => {
    // Prepare
    const clock = new FakeClock(0);
    const fn = flaky(clock, 10);

    // Act
    const run = await runLocalExecution('launch', {}, { definition: FLAKY, invoke: fn.invoke, clock, retryIntervals: 'instant' });

    // Assess
    expect(run).toMatchObject({ status: 'FAILED', error: 'Boom', cause: 'boom' });
    expect(fn.at).toEqual([0, 0, 0, 0]);
  });

  it('should retry each Map iteration on its own and sleep Wait states on the virtual clock', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const definition: AslDefinition = {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Work', States: { Work: task('work', BOOM_RETRY) } },
          ResultPath: null,
          Next: 'Pause',
        },
        Pause: { Type: 'Wait', SecondsPath: '$.pause', Next: 'Last' },
        Last: task('last', []),
      },
    };
    const attempts: string[] = [];
    const invoke = async (key: string, payload: unknown) => {
      attempts.push(`${key} ${JSON.stringify(payload)} @${clock.now() / 1000}`);
      if (payload === 'a' && attempts.filter((a) => a.startsWith('work "a"')).length <= 2) throw boom();
      return payload;
    };

    // Act
    const run = await onVirtualTime(clock, () => runLocalExecution('launch', { items: ['a', 'b'], pause: 5 }, { definition, invoke, clock }));

    // Assess: "b" is not held back by "a"'s retries; the Wait starts when the Map ends (t = 6 s).
    expect(run.status).toBe('SUCCEEDED');
    expect(attempts.sort()).toEqual(['last {"items":["a","b"],"pause":5} @11', 'work "a" @0', 'work "a" @2', 'work "a" @6', 'work "b" @0']);
  });

  it('should draw JitterStrategy FULL from the seed: the same run waits the same, within the interval', async () => {
    // Prepare
    const jittered: AslDefinition = {
      StartAt: 'Flaky',
      States: { Flaky: task('flaky', [{ ...BOOM_RETRY[0], IntervalSeconds: 100, JitterStrategy: 'FULL' }]) },
    };
    const once = async (seed: number) => {
      const clock = new FakeClock(0);
      await runLocalExecution('launch', {}, { definition: jittered, invoke: flaky(clock, 2).invoke, clock, seed });
      return clock.now();
    };

    // Act
    const [a, b, other] = [await once(1), await once(1), await once(2)];

    // Assess
    expect(a).toBe(b);
    expect(a).not.toBe(other);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThanOrEqual(300_000);
  });

  it('should refuse a Task timeout it could only enforce on real time', async () => {
    // Prepare
    const definition: AslDefinition = { StartAt: 'Flaky', States: { Flaky: { ...task('flaky', []), TimeoutSeconds: 10 } } };

    // Act
    const run = runLocalExecution('launch', {}, { definition, invoke: async () => ({}), clock: new FakeClock(0) });

    // Assess
    await expect(run).rejects.toBeInstanceOf(AslNotRunnableLocallyError);
  });

  it('should answer each Task with the createHandler of the module its function key deploys, and fail a key no function declares', async () => {
    // Prepare
    const f = fakes();
    const definition: AslDefinition = { StartAt: 'Validate', States: { Validate: task('validateTerminateInput', [], 'Nope'), Nope: task('nope', []) } };

    // Act
    const bad = await runLocalExecution('terminate', {}, { definition, invoke: localFunctions(f), clock: f.clock });
    const unknown = await runLocalExecution(
      'terminate',
      { nodeName: 'x' },
      { definition: { StartAt: 'Nope', States: { Nope: task('nope', []) } }, invoke: localFunctions(f), clock: f.clock },
    );

    // Assess
    expect(bad).toMatchObject({ status: 'FAILED', error: 'ExecutionInputInvalidError', tasks: ['validateTerminateInput'] });
    expect(unknown).toMatchObject({
      status: 'FAILED',
      error: 'LocalFunctionMissingError',
      cause: expect.stringContaining('"nope" is not declared in infra/functions'),
    });
  });
});
