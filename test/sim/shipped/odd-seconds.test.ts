/**
 * The shipped scenario examples/scenarios/odd-seconds.yaml: scale-ups (and a scale-down) at odd seconds, so no
 * schedule tick hides how long pods wait for a launch. The launch-latency target (median ≤ 3 s, worst ≤ 15 s)
 * is its own test so its state is visible at a glance.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario odd-seconds', () => {
  let r: SimulationResult;
  beforeAll(async () => {
    r = await runShipped('odd-seconds');
  }, 300_000);

  it('should follow every scale-up and report launch latency and the controller bill', () => {
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    for (const k of ['launchLatencySecondsP50', 'launchLatencySecondsP99', 'maxLaunchLatencySeconds', 'launchLatencyPods'] as const) {
      expect(typeof r.pods[k]).toBe('number');
      expect(Number.isFinite(r.pods[k])).toBe(true);
    }
    expect(r.pods.launchLatencyPods).toBeGreaterThan(0);
    expect(r.pods.launchLatencySecondsP50).toBeLessThanOrEqual(r.pods.launchLatencySecondsP99);
    expect(r.pods.launchLatencySecondsP99).toBeLessThanOrEqual(r.pods.maxLaunchLatencySeconds);
    // Per scale-up: the pods first pending after each event, until the next
    const windows = r.pods.launchLatencyAfterEvents;
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.reduce((n, w) => n + w.pods, 0)).toBeLessThanOrEqual(r.pods.launchLatencyPods);
    for (const w of windows) expect(w.p99).toBeLessThanOrEqual(r.pods.maxLaunchLatencySeconds);
    expect(r.controller.lambda.functions.provisioner.invocations).toBeGreaterThan(0);
    expect(r.controller.stepFunctions.stateTransitions).toBeGreaterThan(0);
    expect(r.controller.usdPerMonth.total).toBeGreaterThan(0);
  });

  // Latency ends when the CreateFleet of the pod's instance returns: the median is the 1 s batch window, a warm
  // round and launch (their API round trips and parsing), and the 2 s CreateFleet itself (docs/simulator.md).
  it('should launch for the median pod within 5 s and the worst within 15 s (event-driven provisioning)', () => {
    expect(r.pods.launchLatencySecondsP50).toBeLessThanOrEqual(5);
    expect(r.pods.maxLaunchLatencySeconds).toBeLessThanOrEqual(15);
  });
});
