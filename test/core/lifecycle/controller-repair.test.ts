/**
 * The controller runs a disruption pass when node repair comes due — an unhealthy condition's toleration ending, ten
 * minutes after a repair reboot — rather than at its next periodic pass (up to 5 minutes later).
 */
import { describe, expect, it } from 'vitest';
import { ControllerState } from '../../../shared/core/lifecycle/controller-state';
import { Annotation } from '../../../shared/core/model/labels';
import { epochMs } from '../../../shared/core/time';
import { node, nodeClaim } from '../../fakes/lifecycle';

const T0 = epochMs(Date.UTC(2026, 10, 29, 12));
const timings = { idleMs: 1_000, maxBatchMs: 10_000, quietMs: 2_000, minIntervalMs: 10_000, everyMs: 3_600_000 };
const idle = { provisioning: false, disrupting: false };

describe('controller: node repair timing', () => {
  it('should be due when a condition reaches the end of its toleration', () => {
    const state = new ControllerState(timings, T0);
    const n = node('n1', { unhealthy: [{ type: 'KernelReady', status: 'False', since: epochMs(T0 - 60_000) }] });
    state.apply({ type: 'MODIFIED', object: { kind: 'nodes', name: 'n1', node: n } }, T0, () => false);
    state.disruptionStarted(T0); // the pass the new node's change asks for
    // KernelReady=False is tolerated 30 minutes: due 29 minutes (and a second) from now.
    expect(state.nextDue(idle)).toBe(T0 - 60_000 + 30 * 60_000 + 1_000);
    // Healed: nothing due but the hourly periodic pass.
    state.apply({ type: 'MODIFIED', object: { kind: 'nodes', name: 'n1', node: node('n1') } }, T0, () => false);
    state.disruptionStarted(T0);
    expect(state.nextDue(idle)).toBe(T0 + 3_600_000);
  });

  it('should be due 10 minutes after a repair reboot', () => {
    const state = new ControllerState(timings, T0);
    const c = nodeClaim('c1');
    c.annotations[Annotation.repairRebootedAt] = new Date(T0).toISOString();
    state.apply({ type: 'MODIFIED', object: { kind: 'nodeclaims', name: 'c1', nodeClaim: c } }, T0, () => false);
    expect(state.nextDue(idle)).toBeLessThanOrEqual(T0 + 10 * 60_000 + 1_000);
  });
});
