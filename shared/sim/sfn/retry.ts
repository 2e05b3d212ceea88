/**
 * A Task's `Retry`, as Step Functions applies it — applied by the local runner itself (runner.ts), because
 * aws-local-stepfunctions sleeps its retry intervals on real time. Per state visit, each retrier counts its own
 * retries; the first retrier whose ErrorEquals matches decides (when its MaxAttempts are spent, the error is
 * not retried, whatever the later retriers say).
 */

/** One entry of a state's `Retry` (ASL defaults: IntervalSeconds 1, MaxAttempts 3, BackoffRate 2, JitterStrategy NONE). */
export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: 'FULL' | 'NONE';
}

/** Whether an ErrorEquals entry matches an error name: States.ALL matches any, States.TaskFailed any but States.Timeout. */
export function errorMatches(pattern: string, error: string): boolean {
  if (pattern === 'States.ALL') return true;
  if (pattern === 'States.TaskFailed') return error !== 'States.Timeout';
  return pattern === error;
}

/**
 * Counts one failed attempt against the retriers and returns the milliseconds Step Functions waits before the
 * next attempt, or undefined when the error is not retried. `retried` holds each retrier's retries so far in
 * this state visit (updated). The interval is IntervalSeconds × BackoffRate^(retries so far), at most
 * MaxDelaySeconds; with JitterStrategy FULL, `draw()` (a number in [0, 1)) scales it, as AWS's full jitter.
 */
export function nextRetryDelayMs(retriers: readonly Retrier[], retried: number[], error: string, draw: () => number): number | undefined {
  const i = retriers.findIndex((r) => r.ErrorEquals.some((pattern) => errorMatches(pattern, error)));
  if (i < 0) return undefined;
  const r = retriers[i];
  const done = retried[i] ?? 0;
  if (done >= (r.MaxAttempts ?? 3)) return undefined;
  retried[i] = done + 1;
  const interval = (r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** done;
  const capped = r.MaxDelaySeconds !== undefined ? Math.min(interval, r.MaxDelaySeconds) : interval;
  return (r.JitterStrategy === 'FULL' ? draw() * capped : capped) * 1000;
}
