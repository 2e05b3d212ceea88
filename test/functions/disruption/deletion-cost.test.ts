/**
 * The disruption function with Karpenter's PodDeletionCostManagement gate: each pass writes the ranks of the pods
 * that do not carry theirs, at most once a minute across invocations; without the gate it writes none.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/disruption/disruption';
import { bound, c6g, managed, NOW, pool } from '../../core/disruption/builders';
import { context, scheduledEvent, world } from './world';

const RS = { kind: 'ReplicaSet', name: 'web-abc', controller: true };

function busyFleet() {
  // Two busy nodes (nothing to consolidate: consolidateAfter not yet elapsed), ReplicaSet pods on both
  const p = pool({ consolidateAfter: 3600, budgets: [{ nodes: '100%' }] });
  const a = managed('ip-10-0-1-1', { pool: p, type: c6g.x2large, lastPodEventTime: NOW });
  const b = managed('ip-10-0-1-2', { pool: p, type: c6g.x2large, lastPodEventTime: NOW });
  const pods = [
    bound(a, { name: 'web-1', cpu: '1', owner: RS }),
    bound(b, { name: 'web-2', cpu: '1', owner: RS }),
    bound(b, { name: 'web-3', cpu: '1', owner: RS }),
  ];
  return world({ pools: [p], nodes: [a, b], pods });
}

const annotated = (w: ReturnType<typeof busyFleet>) => w.cluster.writes.filter((x) => x.startsWith('annotatePod'));

describe('disruption function: pod-deletion-cost steering', () => {
  it('should write each ReplicaSet pod its node’s rank when the gate is on, once a minute at most', async () => {
    // Prepare
    const w = busyFleet();
    const handler = createHandler(w, { podDeletionCostManagement: true });

    // Act: a pass, then another 10 s later after a pod moved
    await handler({ reconcile: true }, context('req-1'));
    const first = annotated(w);
    w.cluster.pods = w.cluster.pods.map((p) => (p.name === 'web-3' ? { ...p, annotations: {} } : p));
    w.clock.advance(10_000);
    await handler({ reconcile: true }, context('req-2'));
    const second = annotated(w).length;
    w.clock.advance(60_000);
    await handler(scheduledEvent(NOW + 70_000), context('req-3'));

    // Assess: the node with fewer pods is ranked first (−50); the second pass waits for the minute
    expect(first).toHaveLength(3);
    expect(first[0]).toContain('annotatePod default/web-1 {"controller.kubernetes.io/pod-deletion-cost":"-50"');
    expect(w.cluster.pods.find((p) => p.name === 'web-2')?.annotations).toMatchObject({
      'controller.kubernetes.io/pod-deletion-cost': '-49',
      'karpenter.sh/managed-deletion-cost': 'true',
      'karpenter.sh/last-assigned-deletion-cost': '-49',
    });
    expect(second).toBe(3);
    expect(annotated(w)).toHaveLength(4);
    expect(annotated(w)[3]).toContain('default/web-3');
  });

  it('should not write again within the minute from the later passes of the same invocation', async () => {
    // Prepare: a scheduled invocation runs Karpenter's 10 s loop; a pod loses its value between passes
    const w = busyFleet();
    w.clock.onSleep = () => {
      w.cluster.pods = w.cluster.pods.map((p) => (p.name === 'web-3' ? { ...p, annotations: {} } : p));
    };

    // Act
    const result = await createHandler(w, { podDeletionCostManagement: true, pollMs: 10_000, budgetMs: 50_000 })(scheduledEvent(NOW), context('req-1'));

    // Assess: several passes, one batch of writes
    expect(result.passes).toBeGreaterThan(1);
    expect(annotated(w)).toHaveLength(3);
  });

  it('should write nothing without the gate, and remove its own values when the gate was turned off', async () => {
    // Prepare
    const w = busyFleet();
    const clean = busyFleet();
    w.cluster.pods = w.cluster.pods.map((p) =>
      p.name === 'web-1'
        ? {
            ...p,
            annotations: {
              'controller.kubernetes.io/pod-deletion-cost': '-50',
              'karpenter.sh/managed-deletion-cost': 'true',
              'karpenter.sh/last-assigned-deletion-cost': '-50',
            },
          }
        : p,
    );

    // Act
    await createHandler(clean, {})({ reconcile: true }, context('req-1'));
    await createHandler(w, {})({ reconcile: true }, context('req-1'));

    // Assess
    expect(annotated(clean)).toEqual([]);
    expect(annotated(w)).toHaveLength(1);
    expect(w.cluster.pods.find((p) => p.name === 'web-1')?.annotations).toEqual({});
  });
});
