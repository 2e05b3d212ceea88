/**
 * A handler's own deadline: its remaining time (context.getRemainingTimeInMillis) less a margin. Work raced
 * against it is given up at the deadline with InvocationDeadlineError, so the handler answers before Lambda
 * times it out (a timed-out invocation loses its whole answer: an SQS batch then comes back only after the
 * queue's visibility timeout).
 */
import type { Context } from 'aws-lambda';
import type { Clock } from '../../core/ports';

class InvocationDeadlineError extends Error {
  override readonly name = 'InvocationDeadlineError' as const;
}

export interface InvocationDeadline {
  /** `work`, or InvocationDeadlineError if the deadline comes first (the work goes on, unobserved). */
  race<T>(work: Promise<T>, what: string): Promise<T>;
  /** Ends the timer (call once the handler is done). */
  stop(): void;
}

export function invocationDeadline(
  clock: Pick<Clock, 'sleep'>,
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  marginMs: number,
): InvocationDeadline {
  const remainingMs = context?.getRemainingTimeInMillis?.();
  if (remainingMs === undefined) return { race: (work) => work, stop: () => undefined };
  const stopped = new AbortController();
  const expired = clock.sleep(Math.max(0, remainingMs - marginMs), stopped.signal).then(() => !stopped.signal.aborted);
  return {
    race: async (work, what) => {
      if (!(await Promise.race([work.then(() => false), expired]))) return work;
      work.catch(() => undefined);
      throw new InvocationDeadlineError(`${what}: not done ${marginMs} ms before the function's timeout`);
    },
    stop: () => stopped.abort(),
  };
}
