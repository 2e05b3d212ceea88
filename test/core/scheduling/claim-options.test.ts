import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimOptions } from '../../../shared/core/scheduling/claim-options';
import type { Template, TypeOption } from '../../../shared/core/scheduling/template';

const DIMS = 3;

/** A template whose options have the given effective allocatable vectors (cheapest first: rank = index). */
function templateOf(effs: number[][]): Template {
  const options = effs.map((e, rank) => ({ rank, eff: Float64Array.from(e), it: { name: `t${rank}` } }) as unknown as TypeOption);
  return { options } as unknown as Template;
}

/** What the options left must be, by testing each one: not dropped, and holding every request so far. */
function expected(t: Template, dropped: Set<number>, req: number[]): TypeOption[] {
  return t.options.filter((o) => !dropped.has(o.rank) && req.every((r, d) => r <= o.eff[d]));
}

const effVector = fc.array(fc.integer({ min: 0, max: 8 }), { minLength: DIMS, maxLength: DIMS });
const step = fc.record({ add: effVector, drop: fc.array(fc.nat(), { maxLength: 3 }) });

describe('a claim’s options', () => {
  it('keep exactly the options not ruled out, with their min and max allocatable, as requests grow and types drop', () => {
    fc.assert(
      fc.property(fc.array(effVector, { minLength: 1, maxLength: 30 }), fc.array(step, { maxLength: 12 }), fc.boolean(), (effs, steps, subset) => {
        const t = templateOf(effs);
        const start = subset ? t.options.filter((o) => o.rank % 2 === 0) : t.options;
        const dropped = new Set(t.options.filter((o) => !start.includes(o)).map((o) => o.rank));
        const opts = new ClaimOptions(t, start, DIMS);
        const req = [0, 0, 0];
        for (const { add, drop } of steps) {
          const next = req.map((r, d) => r + add[d]);
          const nz = [0, 1, 2].filter((d) => next[d] > 0);
          const left = expected(t, dropped, next);
          // Counting changes nothing; committing an add that leaves nothing is never asked for.
          expect(opts.keptFor(Float64Array.from(next), nz)).toBe(left.length);
          if (left.length === 0) continue;
          const gone = drop.map((i) => i % effs.length);
          gone.forEach((i) => dropped.add(i));
          next.forEach((r, d) => (req[d] = r));
          opts.commit(Float64Array.from(req), nz, gone);
          const now = expected(t, dropped, req);
          expect(opts.list.map((o) => o.rank)).toEqual(now.map((o) => o.rank));
          expect(opts.size).toBe(now.length);
          for (let d = 0; d < DIMS; d++) {
            expect(opts.minEff[d]).toBe(now.length ? Math.min(...now.map((o) => o.eff[d])) : Infinity);
            expect(opts.maxEff[d]).toBe(now.length ? Math.max(...now.map((o) => o.eff[d])) : 0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
