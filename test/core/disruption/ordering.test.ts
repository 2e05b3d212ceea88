import { describe, expect, it } from 'vitest';
import { computeDisruption, disruptionCost, podCost } from '../../../shared/core/disruption';
import { Annotation } from '../../../shared/core/model/labels';
import { ago, bound, c6g, cluster, HOUR, input, managed, NOW, pool } from './builders';

describe('candidate ordering by disruption cost', () => {
  it('should price a pod by deletion cost and priority, clamped to ±10', () => {
    // Prepare
    const plain = bound('n');
    const precious = bound('n', { annotations: { [Annotation.podDeletionCost]: String(2 ** 27) } });
    const critical = bound('n', { priority: 2_000_000_000 });

    // Act
    const costs = [plain, precious, critical].map(podCost);

    // Assess
    expect(costs).toEqual([1, 2, 10]);
  });

  it('should scale node cost by the lifetime left before expireAfter', () => {
    // Act
    const fresh = disruptionCost([bound('n'), bound('n')], NOW, 100 * HOUR, NOW);
    const halfway = disruptionCost([bound('n'), bound('n')], ago(50 * HOUR), 100 * HOUR, NOW);
    const never = disruptionCost([bound('n'), bound('n')], ago(50 * HOUR), null, NOW);

    // Assess
    expect([fresh, halfway, never]).toEqual([2, 1, 2]);
  });

  it('should consolidate the cheaper-to-disrupt node first', () => {
    // Prepare: "a" and "b" each fit on "c"; "a" runs a pod with a high deletion cost
    const p = pool({ budgets: [{ nodes: '100%' }] });
    const [a, b, c] = ['a', 'b', 'c'].map((n) => managed(n, { pool: p, type: c6g.x2large }));
    const pods = [bound(a, { annotations: { [Annotation.podDeletionCost]: String(2 ** 28) } }), bound(b), bound(c, { cpu: '5' })];

    // Act
    const d = computeDisruption(
      input(cluster({ pools: [p], nodes: [a, b, c], pods }), [c6g.large, c6g.xlarge, c6g.x2large], { options: { multiReplacement: false } }),
    );

    // Assess
    expect(d.command?.candidates[0].node.name).toBe('b');
  });
});
