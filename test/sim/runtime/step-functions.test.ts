import { describe, expect, it } from 'vitest';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { SimulatedStepFunctions } from '../../../shared/sim/runtime/step-functions';
import { loadDefinition, readPath, waitSeconds } from '../../../shared/sim/sfn';

const ARNS = {
  launch: 'arn:aws:states:us-east-1:000000000000:stateMachine:l',
  terminate: 'arn:aws:states:us-east-1:000000000000:stateMachine:t',
  disrupt: 'arn:aws:states:us-east-1:000000000000:stateMachine:d',
};
const unavailable = () => Object.assign(new Error('the API server is unavailable'), { name: 'KubernetesApiUnavailableError' });

async function runUntilIdle(clock: VirtualClock, untilMs: number): Promise<void> {
  for (;;) {
    await settle(clock);
    if (!clock.advance(untilMs)) break;
  }
}

/** The launch machine's functions as stubs: `answers[key]` gives each attempt's outcome in turn (the last repeats). */
function stubs(clock: VirtualClock, answers: Record<string, (object | Error)[]>) {
  const calls: string[] = [];
  const invoke = async (key: string, payload: unknown) => {
    const n = calls.filter((c) => c.startsWith(`${key} `)).length;
    calls.push(`${key} @${clock.elapsedSeconds()}`);
    const list = answers[key] ?? [{}];
    const answer = list[Math.min(n, list.length - 1)];
    if (answer instanceof Error) throw answer;
    return { ...(payload as object), ...answer };
  };
  return { calls, invoke };
}

describe("Step Functions on the simulator's virtual time", () => {
  it('should wait the ASL Retry intervals: validateLaunchInput failing twice (IntervalSeconds 3, BackoffRate 2) ends the execution at t = 9 s', async () => {
    // Prepare
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const retry = (loadDefinition('launch').States.ValidateLaunchInput.Retry as { ErrorEquals: string[]; IntervalSeconds: number; BackoffRate: number }[]).find(
      (r) => r.ErrorEquals.includes('KubernetesApiUnavailableError'),
    );
    const fn = stubs(clock, { validateLaunchInput: [unavailable(), unavailable(), { kind: 'reconcile' }], provisioner: [{}] });
    const sfn = new SimulatedStepFunctions(clock, ARNS, fn.invoke);

    // Act
    sfn.start(ARNS.launch, 'reconcile-1', '{"reconcile":true}');
    await runUntilIdle(clock, clock.now() + 600_000);

    // Assess
    expect(retry).toMatchObject({ IntervalSeconds: 3, BackoffRate: 2 });
    const [execution] = sfn.executions;
    expect(execution).toMatchObject({ status: 'SUCCEEDED', tasks: ['validateLaunchInput', 'validateLaunchInput', 'validateLaunchInput', 'provisioner'] });
    expect(fn.calls).toEqual(['validateLaunchInput @0', 'validateLaunchInput @3', 'validateLaunchInput @9', 'provisioner @9']);
    expect((execution.stoppedMs! - execution.startedMs) / 1000).toBe(9);
    // States entered (ValidateLaunchInput, RouteLaunchInput, Provisioner) plus the two retries.
    expect(execution.transitions).toBe(5);
  });

  it('should sleep each Wait state on virtual time, and a retry after a Wait loop waits only its interval', async () => {
    // Prepare
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const fn = stubs(clock, {
      validateLaunchInput: [{ kind: 'claim', deadlineMs: 0, nodeName: 'n' }],
      checkRegistration: [{ registered: false, timedOut: false }, unavailable(), { registered: true, nodeName: 'n' }],
      initializeNode: [{ initialized: true }],
    });
    const sfn = new SimulatedStepFunctions(clock, ARNS, fn.invoke);

    // Act
    sfn.start(ARNS.launch, 'default-abcde', '{"nodeClaimName":"default-abcde"}');
    await runUntilIdle(clock, clock.now() + 600_000);

    // Assess: WaitForRegistration is 15 s; the KubernetesApiUnavailableError retry 3 s.
    expect(sfn.executions[0]).toMatchObject({ status: 'SUCCEEDED' });
    expect(fn.calls).toEqual([
      'validateLaunchInput @0',
      'launchNodeClaim @0',
      'checkRegistration @15',
      'checkRegistration @30',
      'checkRegistration @33',
      'initializeNode @33',
    ]);
  });

  it('should read simple JSONPaths and Timestamp waits', () => {
    // Act / Assess
    expect(readPath({ a: { b: [1, { c: 7 }] } }, '$.a.b[1].c')).toBe(7);
    expect(readPath({ a: 1 }, '$.missing.x')).toBeUndefined();
    expect(waitSeconds({ Type: 'Wait', TimestampPath: '$.at' }, { at: '2025-01-01T00:01:00Z' }, Date.UTC(2025, 0, 1))).toBe(60);
    expect(waitSeconds({ Type: 'Wait', SecondsPath: '$.s' }, { s: 'x' }, 0)).toBe(0);
    expect(waitSeconds({ Type: 'Wait', SecondsPath: '$.waitSeconds' }, { waitSeconds: 40 }, 0)).toBe(40);
  });
});
