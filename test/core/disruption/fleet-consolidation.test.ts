/**
 * Consolidation that thinks in fleets (issue #29 item 3): a multi-replacement (N → M) re-packs the candidates'
 * pods toward the cheapest fleet with the same code `nodewright plan` runs, the LP included when the function
 * loaded it.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import type { LpSolver } from '../../../shared/core/ports/lp-solver';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';
import { bound, cluster, input, managed, onDemand, pool, sized } from './builders';

const small = sized('small', 2, onDemand(0.03));
const mid = sized('mid', 16, onDemand(0.3));
const giant = sized('giant', 32, onDemand(1.0));

/** Three 16-CPU nodes with 20 pods of 0.6 CPU each: no node's pods fit on the others, and no one node holds them all. */
function threeMidNodes() {
  const p = pool({ budgets: [{ nodes: '100%' }] });
  const nodes = ['a', 'b', 'c'].map((n) => managed(n, { pool: p, type: mid }));
  const pods = nodes.flatMap((m) => Array.from({ length: 20 }, (_, i) => bound(m, { name: `${m.node.name}-${i}`, cpu: '600m', memory: '256Mi' })));
  return cluster({ pools: [p], nodes, pods });
}

describe('multi-replacement re-packed as plan packs (N → M)', () => {
  it('should replace three half-used nodes by the cheapest fleet for their 60 pods, planned with the LP', async () => {
    // Prepare: the LP, counting its solves
    const highs = await HighsLpSolver.create();
    let solves = 0;
    const lp: LpSolver = { solve: (program, options) => ((solves += 1), highs.solve(program, options)) };

    // Act
    const d = computeDisruption({ ...input(threeMidNodes(), [small, mid, giant]), lp });

    // Assess: 20 small nodes ($0.60/h) for $0.90/h of mid nodes; one giant could not hold the 36 CPUs
    expect(d.command).toMatchObject({ method: 'multi-node', action: 'replace', multiReplacement: true });
    expect(d.command?.candidates).toHaveLength(3);
    expect(d.command?.replacements).toHaveLength(20);
    expect(d.command?.replacements.every((r) => r.instanceTypes[0].name === 'small')).toBe(true);
    expect(d.command?.savingsPerHour).toBeCloseTo(0.3);
    expect(solves).toBeGreaterThan(0);
  });

  it('should come to the same fleet without the LP here (one type suits every pod), packed by the heuristic', () => {
    const d = computeDisruption(input(threeMidNodes(), [small, mid, giant]));
    expect(d.command).toMatchObject({ method: 'multi-node', multiReplacement: true });
    expect(d.command?.savingsPerHour).toBeCloseTo(0.3);
  });
});
