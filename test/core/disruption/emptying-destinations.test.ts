/**
 * Beyond Karpenter: a scale-down just emptied some nodes (their consolidateAfter has not passed yet), and the nodes
 * still running pods are consolidatable. Karpenter moves the running pods onto the empty nodes and deletes the
 * busy ones — the saving emptiness would make a minute later without an eviction. nodewright does not use such
 * empty nodes as destinations, unless something keeps them (then they are capacity like any other).
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption } from '../../../shared/core/disruption';
import type { NodePool } from '../../../shared/core/model/karpenter';
import { ago, bound, c6g, cluster, HOUR, input, managed, NOW, pool, type ManagedOptions } from './builders';

function afterScaleDown(emptyOptions: Partial<ManagedOptions> = {}, emptyPool?: NodePool) {
  const p = pool({ consolidateAfter: 60, budgets: [{ nodes: '100%' }] });
  const busy = [0, 1].map((i) => managed(`busy-${i}`, { pool: p, type: c6g.x2large, lastPodEventTime: ago(HOUR) }));
  // Emptied 10 s ago: not consolidatable for another 50 s
  const empty = [0, 1].map((i) => managed(`empty-${i}`, { pool: emptyPool ?? p, type: c6g.x2large, lastPodEventTime: ago(10), ...emptyOptions }));
  const pods = busy.flatMap((m) => [0, 1, 2].map((j) => bound(m, { name: `${m.node.name}-web-${j}`, cpu: '2' })));
  const pools = emptyPool ? [p, emptyPool] : [p];
  return computeDisruption(input(cluster({ pools, nodes: [...busy, ...empty], pods }), [c6g.large, c6g.xlarge, c6g.x2large], { now: NOW }));
}

describe('consolidation around nodes a scale-down just emptied', () => {
  it('should not evict pods onto empty nodes that emptiness removes a minute later', () => {
    // Act
    const d = afterScaleDown();

    // Assess: no move now (a replace of the busy nodes by smaller ones is not cheaper than keeping them)
    const evicting = d.command?.candidates.filter((c) => c.pods.length > 0) ?? [];
    expect(evicting).toEqual([]);
  });

  it('should use an empty node that nothing will remove (do-not-disrupt) as capacity', () => {
    // Act
    const d = afterScaleDown({ nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } });

    // Assess: both busy nodes' pods fit on the two kept empty nodes: deleted
    expect(d.command).toMatchObject({ action: 'delete' });
    expect(d.command?.candidates.map((c) => c.node.name).sort()).toEqual(['busy-0', 'busy-1']);
  });

  it('should use the empty nodes of a static NodePool as capacity: emptiness never removes them', () => {
    // Prepare: the empty nodes belong to a static pool of two replicas
    const statics = pool({ name: 'static', consolidateAfter: 60, budgets: [{ nodes: '100%' }] });
    statics.replicas = 2;

    // Act
    const d = afterScaleDown({}, statics);

    // Assess
    expect(d.command?.candidates.map((c) => c.node.name).sort()).toEqual(['busy-0', 'busy-1']);
  });
});
