import { describe, expect, it } from 'vitest';
import { computeDisruption, validateCommand } from '../../../shared/core/disruption';
import { ago, bound, c6g, cluster, input, managed, NOW, pool, sized, onDemand } from './builders';
import { addSeconds } from '../../../shared/core/time';

const types = [c6g.large, c6g.xlarge, c6g.x2large];

describe('validation re-check', () => {
  it('should keep a command valid when nothing changed', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const i = input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), types);
    const cmd = computeDisruption(i).command!;

    // Act
    const v = validateCommand(cmd, { ...i, now: addSeconds(NOW, 15) });

    // Assess
    expect(v).toEqual({ valid: true });
  });

  it('should cancel an emptiness command when a pod arrives during validation', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a] }), types)).command!;
    expect(cmd.method).toBe('emptiness');
    const arrived = managed('a', { pool: p, type: c6g.xlarge, lastPodEventTime: ago(-10) });

    // Act
    const v = validateCommand(
      cmd,
      input(cluster({ pools: [p], nodes: [arrived], pods: [bound(arrived, { name: 'newcomer' })] }), types, { now: addSeconds(NOW, 15) }),
    );

    // Assess
    expect(v.valid).toBe(false);
    expect(!v.valid && v.reason).toMatch(/pod event|newcomer/);
  });

  it('should cancel an emptiness command when the pod arrived without a pod-event time yet', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a] }), types)).command!;

    // Act
    const v = validateCommand(cmd, input(cluster({ pools: [p], nodes: [a], pods: [bound(a, { name: 'newcomer' })] }), types, { now: addSeconds(NOW, 15) }));

    // Assess
    expect(v).toEqual({ valid: false, reason: 'nodeclaim claim-a is no longer empty: pod default/newcomer arrived' });
  });

  it('should cancel a delete that now needs a new node', () => {
    // Prepare: "a" (1 pod) fits on "b" until a big pod lands on "b"
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const b = managed('b', { pool: p, type: c6g.x2large });
    const pods = [bound(a, { cpu: '1' }), bound(b, { cpu: '3' }), bound(b, { cpu: '3' })];
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a, b], pods }), types)).command!;
    expect(cmd).toMatchObject({ action: 'delete' });
    const more = [...pods, bound(b, { cpu: '1500m', name: 'late' })];

    // Act
    const v = validateCommand(cmd, input(cluster({ pools: [p], nodes: [a, b], pods: more }), types, { now: addSeconds(NOW, 15) }));

    // Assess
    expect(v.valid).toBe(false);
  });

  it('should cancel a replace when the replacement options shrank', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const snap = cluster({ pools: [p], nodes: [a], pods: [bound(a)] });
    const cmd = computeDisruption(input(snap, types)).command!;
    expect(cmd.replacements[0].instanceTypes.map((t) => t.name)).toContain('c6g.large');
    const iced = { ...c6g.large, offerings: c6g.large.offerings.map((o) => ({ ...o, available: false })) };

    // Act
    const v = validateCommand(cmd, input(snap, [iced, c6g.xlarge, c6g.x2large], { now: addSeconds(NOW, 15) }));

    // Assess
    expect(v).toEqual({ valid: false, reason: 'the replacement options changed: c6g.large no longer valid' });
  });

  it('should cancel a command when the budget no longer allows it', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '1' }] });
    const a = managed('a', { pool: p, type: c6g.xlarge });
    const b = managed('b', { pool: p, type: c6g.xlarge });
    const cmd = computeDisruption(input(cluster({ pools: [p], nodes: [a, b] }), types)).command!;
    const other = cmd.candidates[0].node.name === 'a' ? 'b' : 'a';
    const disrupting = managed(other, { pool: p, type: c6g.xlarge, disrupted: true });

    // Act
    const v = validateCommand(cmd, input(cluster({ pools: [p], nodes: [cmd.candidates[0].node.name === 'a' ? a : b, disrupting] }), types));

    // Assess
    expect(v.valid).toBe(false);
    expect(!v.valid && v.reason).toMatch(/^budget/);
  });

  it('should cancel a command whose candidate is gone or blocked now', () => {
    // Prepare
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const a = managed('a', { pool: p, type: sized('x', 8, onDemand(1)) });
    const i = input(cluster({ pools: [p], nodes: [a], pods: [bound(a)] }), [sized('x', 8, onDemand(1)), ...types]);
    const cmd = computeDisruption(i).command!;

    // Act
    const gone = validateCommand(cmd, input(cluster({ pools: [p] }), types));
    const nominated = validateCommand(cmd, { ...i, options: { nominatedNodes: ['a'] } });

    // Assess
    expect(gone).toEqual({ valid: false, reason: 'nodeclaim claim-a is gone' });
    expect(nominated).toEqual({ valid: false, reason: 'nodeclaim claim-a: node is nominated for pending pods' });
  });
});
