import { describe, expect, it } from 'vitest';
import { clusterView, toCandidate } from '../../../shared/core/disruption/candidates';
import { cannotConsolidate } from '../../../shared/core/disruption/prefilter';
import { simulate } from '../../../shared/core/disruption/simulate';
import type { Candidate } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, pool } from './builders';

/** Deterministic PRNG so every run checks the same clusters. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('prefilter before simulating', () => {
  it('should only reject what the scheduler simulation would also reject (40 random small clusters)', () => {
    // Prepare
    const rand = rng(7);
    const types = [c6g.large, c6g.xlarge, c6g.x2large];
    let rejected = 0;
    for (let k = 0; k < 40; k++) {
      const p = pool({ budgets: [{ nodes: '100%' }] });
      const nodes = Array.from({ length: 4 }, (_, i) => managed(`n${i}`, { pool: p, type: types[Math.floor(rand() * 3)] }));
      const pods = nodes.flatMap((m) => {
        const cap = m.node.allocatable.cpu;
        const out = [];
        for (let used = 0; ;) {
          const cpu = 250 * (1 + Math.floor(rand() * 6));
          if (used + cpu > cap * (0.5 + rand() * 0.5)) break;
          used += cpu;
          out.push(bound(m, { cpu: `${cpu}m` }));
        }
        return out;
      });
      const view = clusterView(input(cluster({ pools: [p], nodes, pods }), types));

      // Act
      for (const v of view.views) {
        const c = toCandidate(view, v) as Candidate;
        const why = cannotConsolidate(view, [c]);
        if (!why) continue;
        rejected++;
        const sim = simulate(view, [c]);

        // Assess: the simulation fails too, or its one new node is not cheaper than the candidate
        const ok = sim.failure !== undefined || sim.newClaims.length > 1 || (sim.newClaims.length === 1 && sim.newClaims[0].price >= c.price - 1e-9);
        expect(ok, `${why} but the simulation found ${sim.newClaims.map((x) => `${x.instanceTypes[0].name} $${x.price}`).join(', ') || 'a delete'}`).toBe(true);
      }
    }
    expect(rejected).toBeGreaterThan(0);
  });
});
