/** A function's own long computation takes virtual time at its CPU share; short ones are left to the counted model. */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../shared/sim/clock';
import { ComputeCharge } from '../../../shared/sim/runtime/compute';
import { cpuShare } from '../../../shared/sim/runtime/cost';
import { Meter } from '../../../shared/sim/runtime/metering';

/** Keeps the thread busy for `ms` of process CPU time (what the charge counts), as a search or a plan would. */
function busy(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

describe('charged computation', () => {
  it("should move an invocation's clock while it computes, at its CPU share, and make its end wait for it", async () => {
    // Prepare: a 1,024 MB function, a 50 ms threshold
    const clock = new VirtualClock(0);
    const meter = new Meter(clock, () => 1024);
    const compute = new ComputeCharge(clock, meter, 50);
    // Act
    const seen = await meter.invocation('disruption', async () => {
      const before = compute.now();
      busy(5);
      const short = compute.now();
      busy(200);
      const long = compute.now();
      const running = meter.running();
      await new Promise((resolve) => setImmediate(resolve));
      return { before, short, long, owed: running ? compute.owedMs(running) : 0 };
    });
    meter.stop();
    // Assess: no charge for 5 ms, at least 205 ms / 0.58 once the stretch passed the threshold; the other functions' clock did not move
    expect(seen.short).toBe(seen.before);
    expect(seen.long - seen.before).toBeGreaterThanOrEqual(Math.floor(205 / cpuShare(1024)));
    expect(seen.owed).toBeGreaterThanOrEqual(205 / cpuShare(1024));
    expect(clock.now()).toBe(0);
    expect(compute.chargedMs.get('disruption')).toBe(seen.owed);
  });

  it('should charge nothing outside an invocation or for work below the threshold', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const meter = new Meter(clock, () => 512);
    const compute = new ComputeCharge(clock, meter, 1_000);
    // Act
    const outside = compute.now();
    busy(20);
    const owed = await meter.invocation('taintNode', async () => {
      compute.now();
      busy(20);
      compute.now();
      const running = meter.running();
      return running ? compute.owedMs(running) : -1;
    });
    meter.stop();
    // Assess
    expect(outside).toBe(0);
    expect(owed).toBe(0);
    expect(compute.chargedMs.size).toBe(0);
  });
});
