/**
 * The shipped scenario examples/scenarios/static-pool.yaml (issue #11 item 12): a static NodePool is launched
 * with no pod pending, follows `replicas` up (4m17s) and down (12m43s) through the same launch and drain
 * workflows, never passes limits.nodes, is never consolidated, and is drift-replaced one for one (20m31s).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedNode, SimulationResult } from '../../../shared/sim';
import { expectClean, MINUTES, runShipped } from './helpers';

const aliveAt = (nodes: SimulatedNode[], t: number) => nodes.filter((n) => n.launchedAt <= t && (n.terminatedAt === undefined || n.terminatedAt > t));

describe('shipped scenario static-pool', () => {
  let r: SimulationResult;
  let statics: SimulatedNode[];
  beforeAll(async () => {
    r = await runShipped('static-pool');
    statics = r.nodes.filter((n) => n.nodePool === 'static');
  }, 300_000);

  it('keeps every pod and PDB, and leaves nothing behind', () => {
    expectClean(r);
    expect(r.final.pendingPods).toBe(0);
  });

  it('launches the 3 replicas at once with no pod pending, and the 4th within seconds of the scale-up', () => {
    const first = statics.filter((n) => n.launchedAt < 1 * MINUTES);
    expect(first).toHaveLength(3);
    const scaledUp = statics.filter((n) => n.launchedAt >= 4 * MINUTES + 17 && n.launchedAt < 5 * MINUTES);
    expect(scaledUp).toHaveLength(1);
    expect(scaledUp[0].launchedAt - (4 * MINUTES + 17)).toBeLessThanOrEqual(5);
    expect(aliveAt(statics, 12 * MINUTES)).toHaveLength(4);
  });

  it('scales down to 1 through the drain, never past limits.nodes, and is never consolidated', () => {
    expect(aliveAt(statics, 18 * MINUTES)).toHaveLength(1);
    for (let t = 0; t <= r.scenario.durationSeconds; t += 5) expect(aliveAt(statics, t).length, `at ${t}s`).toBeLessThanOrEqual(4);
    const ended = statics.filter((n) => n.terminatedAt !== undefined);
    expect(ended.map((n) => n.terminationReason).sort()).toEqual(['Deleted', 'Deleted', 'Deleted', 'Drifted']);
    expect(
      r.disruptions
        .filter((d) => d.reason === 'underutilized' || d.reason === 'empty')
        .flatMap((d) => d.nodes)
        .filter((x) => statics.some((n) => n.name === x)),
    ).toEqual([]);
  });

  it('replaces the drifted static node one for one, the replacement up before the old one goes', () => {
    const drifted = statics.find((n) => n.terminationReason === 'Drifted')!;
    const replacement = statics.find((n) => n.launchedAt > 20 * MINUTES + 31)!;
    expect(replacement.readyAt!).toBeLessThan(drifted.terminatedAt!);
    expect(aliveAt(statics, r.scenario.durationSeconds - 1)).toEqual([replacement]);
  });
});
