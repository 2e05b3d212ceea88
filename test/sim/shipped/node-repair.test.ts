/**
 * The shipped scenario examples/scenarios/node-repair.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines, the simulated kubelet's and node monitoring agent's conditions and EC2 reboots — with
 * assertions on its JSON summary.
 */
import { describe, expect, it } from 'vitest';
import { expectClean, MINUTES, runShipped } from './helpers';

describe('shipped scenario node-repair', () => {
  it('should reboot the two monitoring-agent faults, replace the one a reboot did not clear and the dead kubelet, within the PDB', async () => {
    const r = await runShipped('node-repair');
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
    expect(r.nodeHealth).toEqual({ injected: 3, reboots: 2 });
    const repairs = r.disruptions.filter((d) => d.reason === 'unhealthy');
    expect(repairs).toHaveLength(2);
    expect(repairs.every((d) => d.replacements === 1)).toBe(true);
    // ContainerRuntimeReady broke at 9m11s: rebooted at its 30-minute toleration, replaced 10 minutes later.
    expect(repairs[0].t).toBeGreaterThanOrEqual((9 + 30 + 10) * MINUTES);
    expect(repairs[0].t).toBeLessThan((9 + 30 + 12) * MINUTES);
    // The kubelet stopped at 41m13s: Unknown 40 s later, replaced 30 minutes after that.
    expect(repairs[1].t).toBeGreaterThanOrEqual(41 * MINUTES + 13 + 40 + 30 * MINUTES);
    expect(repairs[1].t).toBeLessThan((41 + 33) * MINUTES);
    // The kernel fault the reboot cleared kept its node.
    expect(r.nodes.filter((n) => n.terminatedAt !== undefined)).toHaveLength(2);
  }, 300_000);
});
