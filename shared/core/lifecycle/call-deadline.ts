/**
 * A call from the controller carries the time it must end by (`deadlineMs`): the controller waits for its calls before
 * it hands over, and a call started just before the hand-over must not hold the controller past its own timeout.
 * Absent on scheduled and manual runs.
 */
import { ExecutionInputInvalidError } from '../errors';
import { epochMs, type EpochMs } from '../time';

/** The payload's `deadlineMs` (milliseconds since the epoch), undefined when absent; anything else is refused before any work. */
export function callDeadline(event: unknown, fn: string): EpochMs | undefined {
  if (typeof event !== 'object' || event === null || !('deadlineMs' in event)) return undefined;
  const v = (event as { deadlineMs: unknown }).deadlineMs;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ExecutionInputInvalidError(`${fn} input: deadlineMs must be milliseconds since the epoch (a non-negative integer), got ${JSON.stringify(v)}`);
  return epochMs(v);
}
