/**
 * A call from the controller carries the time it must end by (`deadlineMs`): the controller waits for its calls before
 * it hands over, and a call started just before the hand-over must not hold the controller past its own timeout.
 * Absent on scheduled and manual runs.
 */
import { ExecutionInputInvalidError } from '../errors';
import { epochMs, type EpochMs } from '../time';

/**
 * When the invocation must be done: the earlier of the payload's `deadlineMs` and the function's timeout (`now` +
 * `remainingMs`, Lambda's getRemainingTimeInMillis); undefined when neither is known.
 */
export function invocationEnd(event: unknown, fn: string, now: EpochMs, remainingMs: number | undefined): EpochMs | undefined {
  const ends = [callDeadline(event, fn), remainingMs === undefined ? undefined : now + remainingMs].filter((t) => t !== undefined);
  return ends.length ? epochMs(Math.min(...ends)) : undefined;
}

/** The payload's `deadlineMs` (milliseconds since the epoch), undefined when absent; anything else is refused before any work. */
function callDeadline(event: unknown, fn: string): EpochMs | undefined {
  if (typeof event !== 'object' || event === null || !('deadlineMs' in event)) return undefined;
  const v = (event as { deadlineMs: unknown }).deadlineMs;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ExecutionInputInvalidError(`${fn} input: deadlineMs must be milliseconds since the epoch (a non-negative integer), got ${JSON.stringify(v)}`);
  return epochMs(v);
}
