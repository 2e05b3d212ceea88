import { describe, expect, it } from 'vitest';
import { settle, VirtualClock } from '../../shared/sim/clock';

describe('VirtualClock', () => {
  it('should wake sleepers in time order and only when advanced', async () => {
    // Prepare
    const clock = new VirtualClock(1_000_000);
    const woke: string[] = [];
    void clock.sleep(5_000).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(1_000).then(() => woke.push(`a@${clock.now()}`));
    // Act
    await settle(clock);
    const before = [...woke];
    clock.advance(Number.MAX_SAFE_INTEGER);
    await settle(clock);
    clock.advance(Number.MAX_SAFE_INTEGER);
    await settle(clock);
    // Assess
    expect(before).toEqual([]);
    expect(woke).toEqual(['a@1001000', 'b@1005000']);
  });

  it('should count an activity as idle only while it sleeps on the clock', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Act
    const done = clock.track('work', async () => {
      await gate;
      await clock.sleep(10_000);
      return clock.now();
    });
    const busyBefore = clock.idle();
    release();
    await settle(clock);
    const idleWhileSleeping = clock.idle();
    clock.advance(Number.MAX_SAFE_INTEGER);
    // Assess
    expect(busyBefore).toBe(false);
    expect(idleWhileSleeping).toBe(true);
    expect(await done).toBe(10_000);
    expect(clock.activeCount()).toBe(0);
  });

  it('should not move past the limit and should repeat `every` timers', () => {
    // Prepare
    const clock = new VirtualClock(0);
    const ticks: number[] = [];
    clock.every(60_000, () => ticks.push(clock.now()));
    // Act
    while (clock.advance(200_000)) {
      /* fire every due timer */
    }
    // Assess
    expect(ticks).toEqual([60_000, 120_000, 180_000]);
    expect(clock.now()).toBe(200_000);
  });

  it('should keep time still while a busy probe reports work', () => {
    // Prepare
    const clock = new VirtualClock(0);
    let inFlight = 1;
    clock.addBusyProbe(() => (inFlight > 0 ? 'request in flight' : undefined));
    // Act
    const busy = clock.busy();
    inFlight = 0;
    // Assess
    expect(busy).toEqual(['request in flight']);
    expect(clock.idle()).toBe(true);
  });

  it('should call a busy probe stalled only when none of its work completes', async () => {
    // Prepare: the same number of requests in flight throughout; one clock answers them, the other never does.
    const moving = new VirtualClock(0);
    let answered = 0;
    const timer = setInterval(() => answered++, 5);
    moving.addBusyProbe(
      () => (answered < 40 ? '15 HTTP request(s) in flight' : undefined),
      () => answered,
    );
    const stuck = new VirtualClock(0);
    stuck.addBusyProbe(
      () => '15 HTTP request(s) in flight',
      () => 0,
    );
    // Act
    const settledWhileAnswering = await settle(moving, { timeoutMs: 50 }).then(() => true);
    clearInterval(timer);
    const stalled = await settle(stuck, { timeoutMs: 50 }).catch((e: Error) => e.message);
    // Assess
    expect(settledWhileAnswering).toBe(true);
    expect(stalled).toBe('activities did not settle: 15 HTTP request(s) in flight');
  });

  it('should not call a long computation elsewhere in the process a stall', async () => {
    // Prepare: the same request in flight throughout; the process is busy for 300 ms, then the answer comes
    const clock = new VirtualClock(0);
    let answered = false;
    clock.addBusyProbe(
      () => (answered ? undefined : '1 HTTP request(s) in flight'),
      () => 0,
    );
    setTimeout(() => {
      const until = Date.now() + 1_300;
      while (Date.now() < until) {
        /* a long synchronous computation */
      }
      setTimeout(() => (answered = true), 30);
    }, 5);
    // Act
    const settled = await settle(clock, { timeoutMs: 100 }).then(
      () => 'settled',
      (e: Error) => e.message,
    );
    // Assess
    expect(settled).toBe('settled');
  });
});
