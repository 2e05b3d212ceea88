/**
 * The shipped scenario examples/scenarios/spot-interruption-pdb.yaml (issue #8's case): six replicas on one spot
 * node under `minAvailable: 4`, interrupted twice at odd seconds, on the production handlers and state machines.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario spot-interruption-pdb', () => {
  it('should lose no pod: replacement requested with the warning, drained before the 2-minute reclaim, one disruption per node', async () => {
    // Act
    const r = await runShipped('spot-interruption-pdb');
    // Assess
    expectClean(r);
    expect(r.violations.podsLost).toBe(0);
    const interrupted = r.nodes.filter((n) => n.interruptedAt !== undefined);
    expect(interrupted).toHaveLength(2);
    expect(r.disruptions.filter((d) => d.reason === 'interrupted')).toHaveLength(2);
    for (const n of interrupted) {
      // A replacement was launched within 8 s of the warning (cold starts of the interruption function and
      // LaunchReplacement included), and the node was gone before its reclaim.
      expect(r.nodes.some((m) => m.launchedAt >= n.interruptedAt! && m.launchedAt - n.interruptedAt! <= 8)).toBe(true);
      expect(n.terminatedAt! - n.interruptedAt!).toBeLessThan(120);
    }
    expect(r.pods.minReadyAfterRollout['default/web']).toBeGreaterThanOrEqual(4);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
