import { describe, expect, it } from 'vitest';
import { errorMatches, nextRetryDelayMs, type Retrier } from '../../../shared/sim/sfn/retry';

const never = () => 0.5;

/** The delays of successive failures with `errors`, until one is not retried (undefined). */
function delays(retry: Retrier[], errors: string[], draw = never): (number | undefined)[] {
  const retried: number[] = [];
  return errors.map((e) => nextRetryDelayMs(retry, retried, e, draw));
}

describe('Step Functions Retry, as the local runner applies it', () => {
  it('should wait IntervalSeconds × BackoffRate^n, then stop after MaxAttempts', () => {
    // Prepare
    const retry = [{ ErrorEquals: ['KubernetesApiUnavailableError'], IntervalSeconds: 3, MaxAttempts: 3, BackoffRate: 2 }];

    // Act
    const waited = delays(retry, Array(4).fill('KubernetesApiUnavailableError'));

    // Assess
    expect(waited).toEqual([3000, 6000, 12000, undefined]);
    expect(delays(retry, ['Other'])).toEqual([undefined]);
  });

  it('should apply the ASL defaults (1 s, rate 2, 3 attempts), MaxDelaySeconds and MaxAttempts 0', () => {
    // Act / Assess
    expect(delays([{ ErrorEquals: ['States.ALL'] }], ['E', 'E', 'E', 'E'])).toEqual([1000, 2000, 4000, undefined]);
    expect(delays([{ ErrorEquals: ['E'], IntervalSeconds: 2, BackoffRate: 10, MaxAttempts: 4, MaxDelaySeconds: 50 }], ['E', 'E', 'E', 'E'])).toEqual([
      2000, 20000, 50000, 50000,
    ]);
    expect(delays([{ ErrorEquals: ['E'], MaxAttempts: 0 }], ['E'])).toEqual([undefined]);
  });

  it('should let the first matching retrier decide, each retrier counting its own retries across error names', () => {
    // Prepare
    const retry = [
      { ErrorEquals: ['A', 'B'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 2 },
      { ErrorEquals: ['States.ALL'], IntervalSeconds: 10, MaxAttempts: 5 },
    ];

    // Act
    const waited = delays(retry, ['A', 'C', 'B', 'A']);

    // Assess: B continues A's count (2 s), then A finds its retrier spent and is not retried by States.ALL.
    expect(waited).toEqual([1000, 10000, 2000, undefined]);
  });

  it('should match States.TaskFailed to any error but States.Timeout', () => {
    // Act / Assess
    expect(errorMatches('States.TaskFailed', 'Sandbox.Timedout')).toBe(true);
    expect(errorMatches('States.TaskFailed', 'States.Timeout')).toBe(false);
    expect(errorMatches('States.ALL', 'States.Timeout')).toBe(true);
    expect(errorMatches('A', 'B')).toBe(false);
  });

  it('should scale the interval by the draw with JitterStrategy FULL', () => {
    // Prepare
    const retry: Retrier[] = [{ ErrorEquals: ['E'], IntervalSeconds: 4, BackoffRate: 2, JitterStrategy: 'FULL' }];

    // Act
    const waited = delays(retry, ['E', 'E'], () => 0.25);

    // Assess
    expect(waited).toEqual([1000, 2000]);
  });
});
