/**
 * PodDeletionCostManagement (issue #29 item 5; Karpenter's alpha gate): the pods of the nodes disruption would take
 * first get the lowest controller.kubernetes.io/pod-deletion-cost, so a ReplicaSet scale-down empties those nodes.
 * The RFC's example: three nodes of three replicas, scaled 9 → 6, should lose the three pods of one node.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption, deletionCostRemovals, deletionCostWrites, podCost } from '../../../shared/core/disruption';
import type { Pod } from '../../../shared/core/model/kube';
import { ago, bound, c6g, cluster, HOUR, input, managed, pool, type Managed, type ManagedOptions } from './builders';

const RS = { kind: 'ReplicaSet', name: 'web-abc', controller: true };
const COST = 'controller.kubernetes.io/pod-deletion-cost';
const MANAGED = 'karpenter.sh/managed-deletion-cost';
const LAST = 'karpenter.sh/last-assigned-deletion-cost';

function fleet(o: { nodes: [string, number, Partial<ManagedOptions>?][]; budget?: string; podAnnotations?: Record<string, Record<string, string>> }) {
  const p = pool({ consolidateAfter: 60, budgets: [{ nodes: o.budget ?? '100%' }] });
  const nodes: Managed[] = [];
  const pods: Pod[] = [];
  for (const [name, count, extra] of o.nodes) {
    const m = managed(name, { pool: p, type: c6g.x2large, lastPodEventTime: ago(HOUR), ...extra });
    nodes.push(m);
    for (let i = 0; i < count; i++) {
      const podName = `${name}-web-${i}`;
      pods.push(bound(m, { name: podName, cpu: '500m', owner: RS, annotations: o.podAnnotations?.[podName] }));
    }
  }
  return input(cluster({ pools: [p], nodes, pods }), [c6g.large, c6g.xlarge, c6g.x2large]);
}

const costs = (writes: ReturnType<typeof deletionCostWrites>) => Object.fromEntries(writes.map((w) => [w.name, w.cost]));

describe('pod-deletion-cost steering', () => {
  it('should rank the nodes in consolidation order: the emptiest node’s pods go first on a scale-down', () => {
    // Prepare: a (3 pods), b (2 pods), c (4 pods) — b is cheapest to disrupt
    const i = fleet({
      nodes: [
        ['a', 3],
        ['b', 2],
        ['c', 4],
      ],
    });

    // Act
    const writes = deletionCostWrites(i);

    // Assess: ranks from −50 (a constant base: a node joining does not shift them), b first; each pod written with nodewright's markers
    expect(costs(writes)).toEqual({
      'b-web-0': -50,
      'b-web-1': -50,
      'a-web-0': -49,
      'a-web-1': -49,
      'a-web-2': -49,
      'c-web-0': -48,
      'c-web-1': -48,
      'c-web-2': -48,
      'c-web-3': -48,
    });
    expect(writes[0].annotations).toEqual({ [COST]: '-50', [MANAGED]: 'true', [LAST]: '-50' });
  });

  it('should put a node being disrupted first and drifted nodes before the rest, ranking past the budget', () => {
    // Prepare: d is being disrupted; x is drifted; a, b, c are candidates; the budget allows 2 nodes
    const i = fleet({
      nodes: [
        ['a', 3],
        ['b', 2],
        ['c', 4],
        ['x', 5],
        ['d', 1, { disrupted: true }],
      ],
      budget: '2',
    });
    i.drifted = { [i.snapshot.nodeClaims[3].name]: 'AMIDrift' };

    // Act
    const c = costs(deletionCostWrites(i));

    // Assess: d at the lowest int32, then x (drifted), then b, a, c in consolidation order. Karpenter would rank
    // only what the budget allows now (x and b); nodewright ranks them all, so a scale-down larger than the budget
    // still empties whole nodes, which the budget then removes one after another
    expect(c['d-web-0']).toBe(-2_147_483_648);
    expect([c['x-web-0'], c['b-web-0'], c['a-web-0'], c['c-web-0']]).toEqual([-50, -49, -48, -47]);
  });

  it('should rank the first 50 nodes only', () => {
    // Prepare: 60 nodes of one pod each
    const i = fleet({ nodes: Array.from({ length: 60 }, (_, n): [string, number] => [`n${String(n).padStart(2, '0')}`, 1]) });

    // Act
    const ranked = deletionCostWrites(i).filter((w) => w.cost !== null);

    // Assess
    expect(ranked).toHaveLength(50);
    expect(ranked[0].cost).toBe(-50);
    expect(ranked.at(-1)?.cost).toBe(-1);
  });

  it('should leave nodes that cannot be disrupted unranked, and the pods whose cost someone else set alone', () => {
    // Prepare: n has do-not-disrupt; one pod of a carries the user's own pod-deletion-cost; b was ranked before
    // but now has a do-not-disrupt pod
    const i = fleet({
      nodes: [
        ['a', 2],
        ['n', 2, { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } }],
        ['b', 2],
      ],
      podAnnotations: {
        'a-web-0': { [COST]: '100' },
        'b-web-0': { [COST]: '-1', [MANAGED]: 'true', [LAST]: '-1', 'karpenter.sh/do-not-disrupt': 'true' },
        'b-web-1': { [COST]: '-1', [MANAGED]: 'true', [LAST]: '-1' },
      },
    });

    // Act
    const writes = deletionCostWrites(i);

    // Assess: a-web-1 ranked; a-web-0 (the user's value) untouched; n never; b's values removed
    expect(costs(writes)).toEqual({ 'a-web-1': -50, 'b-web-0': null, 'b-web-1': null });
    expect(writes.find((w) => w.name === 'b-web-1')?.annotations).toEqual({ [COST]: null, [MANAGED]: null, [LAST]: null });
  });

  it('should write nothing when every pod already carries its rank', () => {
    // Prepare
    const rank = (v: string) => ({ [COST]: v, [MANAGED]: 'true', [LAST]: v });
    const i = fleet({
      nodes: [
        ['a', 1],
        ['b', 2],
      ],
      podAnnotations: { 'a-web-0': rank('-50'), 'b-web-0': rank('-49'), 'b-web-1': rank('-49') },
    });

    // Act / Assess
    expect(deletionCostWrites(i)).toEqual([]);
  });

  it('should not let its own ranks change consolidation’s choice; the user’s karpenter.sh/disruption-cost counts', () => {
    // Prepare: the same fleet with and without nodewright's ranks written on the pods
    const plain = fleet({
      nodes: [
        ['a', 1],
        ['b', 3],
      ],
    });
    const ranked = fleet({
      nodes: [
        ['a', 1],
        ['b', 3],
      ],
      podAnnotations: { 'b-web-0': { [COST]: '-2147483648', [MANAGED]: 'true', [LAST]: '-2147483648' } },
    });
    const own = bound('a', { annotations: { 'karpenter.sh/disruption-cost': String(2 ** 27) } });

    // Act
    const before = computeDisruption(plain).command?.candidates.map((c) => c.node.name);
    const after = computeDisruption(ranked).command?.candidates.map((c) => c.node.name);

    // Assess
    expect(after).toEqual(before);
    expect(podCost(ranked.snapshot.pods[1])).toBe(1);
    expect(podCost(own)).toBe(2);
  });

  it('should keep every rank when a node that is not ranked joins, and remove only its own values when the gate is off', () => {
    // Prepare: a and b ranked and written; then a do-not-disrupt node joins
    const rank = (v: string) => ({ [COST]: v, [MANAGED]: 'true', [LAST]: v });
    const annotations = { 'a-web-0': rank('-50'), 'b-web-0': rank('-49'), 'b-web-1': rank('-49'), 'n-web-0': { [COST]: '7' } };
    const i = fleet({
      nodes: [
        ['a', 1],
        ['b', 2],
        ['n', 1, { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } }],
      ],
      podAnnotations: annotations,
    });

    // Act
    const writes = deletionCostWrites(i);
    const removals = deletionCostRemovals(i);

    // Assess: nothing to rewrite; with the gate off, nodewright's three values go and the user's stays
    expect(writes).toEqual([]);
    expect(costs(removals)).toEqual({ 'a-web-0': null, 'b-web-0': null, 'b-web-1': null });
  });
});
