import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/controller/controller';
import { settle } from '../../../shared/sim/clock';
import { T0, world } from '../../core/lifecycle/controller-fixtures';

/** Runs the handler for an EventBridge heartbeat it began `tickOffsetMs` after; how long after the heartbeat it ended. */
async function runUntilHandover(tickOffsetMs: number): Promise<number> {
  const w = world();
  const started = w.clock.now();
  const context = { awsRequestId: 'r-1', getRemainingTimeInMillis: () => 900_000 - tickOffsetMs } as unknown as Context;
  const event = { source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date(started - tickOffsetMs).toISOString() };
  let ended: number | undefined;
  void w.clock.track('controller', () => createHandler(w)(event, context)).then(() => (ended = w.clock.now()));
  for (;;) {
    await settle(w.clock);
    if (ended !== undefined || !w.clock.advance(T0 + 20 * 60_000)) break;
  }
  return (ended ?? NaN) - (started - tickOffsetMs);
}

describe('the controller function', () => {
  it('should plan its hand-over 14 min 6 s after the heartbeat that started it, however late it began', async () => {
    // Act: one run starting 0.6 s after its heartbeat, one 20 s after (a cold start, a slow INIT)
    const prompt = await runUntilHandover(600);
    const late = await runUntilHandover(20_000);
    // Assess: the heartbeat a minute before the hand-over (66 s) is outside the 65 s window; the next one waits 6 s
    expect(prompt).toBe(14 * 60_000 + 6_000);
    expect(late).toBe(14 * 60_000 + 6_000);
  });
});
