/**
 * Node repair, with the cases of kubernetes-sigs/karpenter pkg/controllers/node/health/suite_test.go and the AWS
 * provider's repair policies: a node unhealthy past its toleration is repaired (never before), the earliest-due
 * condition decides, not when more than 20 % of the pool is unhealthy (rounded up: 1 of 3 may be), within the pool's
 * budgets — plus nodewright's reboot first for monitoring-agent conditions, replacement if the reboot did not help,
 * pre-spun replacements and terminate-first when none can be planned.
 */
import { describe, expect, it } from 'vitest';
import { computeDisruption, type DisruptionDecision } from '../../../shared/core/disruption';
import { nodeFromKube } from '../../../shared/core/model/from-kube';
import { Annotation } from '../../../shared/core/model/labels';
import { ago, bound, c6g, claimNames, cluster, input, managed, NOW, pool, type Managed } from './builders';

const types = [c6g.large, c6g.xlarge, c6g.x2large];

function sick(m: Managed, type: string, status: string, sinceSecondsAgo: number): Managed {
  m.node.unhealthy = [...(m.node.unhealthy ?? []), { type, status, since: ago(sinceSecondsAgo) }];
  if (type === 'Ready') m.node.ready = false;
  return m;
}

/** Each node busy with a 3-CPU pod (of 4): a repaired node's pod fits nowhere else, so it is replaced. */
const decide = (
  nodes: Managed[],
  p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null }),
  pods = nodes.map((n) => bound(n, { cpu: '3' })),
): DisruptionDecision => computeDisruption(input(cluster({ pools: [p], nodes, pods }), types));

const healthy = (name: string, p: ReturnType<typeof pool>) => managed(name, { pool: p, type: c6g.xlarge });

describe('node repair', () => {
  it('should replace a node NotReady for 30 minutes with a pre-spun node, and leave one NotReady for 29 alone', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const due = sick(managed('due', { pool: p, type: c6g.xlarge }), 'Ready', 'False', 30 * 60);
    const early = sick(managed('early', { pool: p, type: c6g.xlarge }), 'Ready', 'Unknown', 29 * 60);
    const others = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => healthy(n, p));
    const d = decide([due, early, ...others], p);
    expect(d.repairs).toHaveLength(1);
    expect(d.repairs[0]).toMatchObject({
      method: 'repair',
      reason: 'unhealthy',
      action: 'replace',
      repair: { condition: 'Ready', status: 'False', drainSeconds: 300 },
    });
    expect(claimNames(d.repairs[0].candidates)).toEqual(['claim-due']);
    expect(d.repairs[0].replacements).toHaveLength(1);
    // The repaired node is not also a candidate of this pass's other methods.
    expect(claimNames(d.command?.candidates)).not.toContain('claim-due');
  });

  it('should reboot first for a monitoring-agent condition a reboot can clear, then replace if still unhealthy 10 minutes after', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const kernel = sick(managed('k', { pool: p, type: c6g.xlarge }), 'KernelReady', 'False', 31 * 60);
    const others = ['a', 'b', 'c', 'd', 'e'].map((n) => healthy(n, p));
    expect(decide([kernel, ...others], p).repairs[0]).toMatchObject({ action: 'reboot', repair: { condition: 'KernelReady' } });

    // Rebooted 5 minutes ago, and the kernel fault came back a minute after: wait for the reboot's grace.
    const rebooted = sick(
      managed('k', { pool: p, type: c6g.xlarge, claimAnnotations: { [Annotation.repairRebootedAt]: new Date(ago(5 * 60)).toISOString() } }),
      'KernelReady',
      'False',
      4 * 60,
    );
    const waiting = decide([rebooted, ...others], p);
    expect(waiting.repairs).toEqual([]);
    expect(waiting.audit.some((r) => r.detail.method === 'repair' && /replace at/.test(r.detail.why))).toBe(true);

    // 11 minutes after the reboot: replaced, not rebooted again.
    const after = sick(
      managed('k', { pool: p, type: c6g.xlarge, claimAnnotations: { [Annotation.repairRebootedAt]: new Date(ago(11 * 60)).toISOString() } }),
      'KernelReady',
      'False',
      10 * 60,
    );
    expect(decide([after, ...others], p).repairs[0]).toMatchObject({ action: 'replace' });
  });

  it('should replace a GPU with AcceleratedHardwareReady=False after 10 minutes, without a reboot', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const gpu = sick(managed('gpu', { pool: p, type: c6g.xlarge }), 'AcceleratedHardwareReady', 'False', 10 * 60);
    const d = decide([gpu, ...['a', 'b', 'c', 'd', 'e'].map((n) => healthy(n, p))], p);
    expect(d.repairs[0]).toMatchObject({ action: 'replace', repair: { condition: 'AcceleratedHardwareReady', drainSeconds: 600 } });
  });

  it('should take the condition that comes due first when several are unhealthy', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const both = sick(sick(managed('both', { pool: p, type: c6g.xlarge }), 'KernelReady', 'False', 5 * 60), 'AcceleratedHardwareReady', 'False', 11 * 60);
    const d = decide([both, ...['a', 'b', 'c', 'd', 'e'].map((n) => healthy(n, p))], p);
    expect(d.repairs[0].repair?.condition).toBe('AcceleratedHardwareReady');
  });

  it('should not repair when more than 20% of the pool is unhealthy, and say so', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    // 1 of 3 is within 20 % rounded up (ceil(0.6) = 1); 2 of 5 is not (ceil(1) = 1).
    const one = decide([sick(healthy('x', p), 'Ready', 'False', 3600), healthy('a', p), healthy('b', p)], p);
    expect(one.repairs).toHaveLength(1);
    const two = decide(
      [sick(healthy('x', p), 'Ready', 'False', 3600), sick(healthy('y', p), 'KernelReady', 'False', 60), healthy('a', p), healthy('b', p), healthy('c', p)],
      p,
    );
    expect(two.repairs).toEqual([]);
    expect(two.repairBlocked).toEqual([
      expect.objectContaining({ node: 'x', nodePool: 'default', why: 'more than 20% nodes are unhealthy in the nodepool (2 of 5)' }),
    ]);
  });

  it('should obey the budgets that apply to all reasons, without counting the unhealthy NotReady node itself', () => {
    const blocked = pool({ budgets: [{ nodes: '0' }], consolidateAfter: null });
    const one = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null });
    const driftOnly = pool({ budgets: [{ nodes: '0', reasons: ['Drifted'] }], consolidateAfter: null });
    const nodes = (p: ReturnType<typeof pool>) => [sick(healthy('x', p), 'Ready', 'False', 3600), ...['a', 'b', 'c', 'd', 'e'].map((n) => healthy(n, p))];
    expect(decide(nodes(blocked), blocked).repairBlocked[0].why).toMatch(/^budget/);
    expect(decide(nodes(one), one).repairs).toHaveLength(1);
    expect(decide(nodes(driftOnly), driftOnly).repairs).toHaveLength(1);
  });

  it('should terminate first when no replacement can be planned (a pool at its limits), and delete an empty node outright', () => {
    const full = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    full.limits = { cpu: 4000 * 6 };
    const nodes = [sick(healthy('x', full), 'Ready', 'False', 3600), ...['a', 'b', 'c', 'd', 'e'].map((n) => healthy(n, full))];
    const pods = nodes.map((n) => bound(n, { cpu: '3' }));
    const d = decide(nodes, full, pods);
    expect(d.repairs[0]).toMatchObject({ action: 'delete', replacements: [] });
    const empty = decide(nodes, full, pods.slice(1));
    expect(empty.repairs[0]).toMatchObject({ action: 'delete' });
  });

  it('should leave a node with do-not-disrupt, and one already being deleted, to themselves', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const protectedNode = sick(managed('p', { pool: p, type: c6g.xlarge, nodeAnnotations: { [Annotation.doNotDisrupt]: 'true' } }), 'Ready', 'False', 3600);
    const deleting = sick(managed('d', { pool: p, type: c6g.xlarge, deleting: true }), 'Ready', 'False', 3600);
    const d = decide([protectedNode, deleting, ...['a', 'b', 'c', 'd2', 'e', 'f', 'g', 'h'].map((n) => healthy(n, p))], p);
    expect(d.repairs).toEqual([]);
    expect(d.repairBlocked.map((b) => b.node)).toEqual(['p']);
  });

  it("should read the node's repair-policy conditions, with when each began, and no others", () => {
    const cond = (type: string, status: string, at: string, reason = 'R') => ({ type, status, lastTransitionTime: at, reason, message: '' });
    const node = nodeFromKube({
      metadata: { name: 'n', creationTimestamp: '2026-11-29T10:00:00Z' },
      status: {
        conditions: [
          cond('Ready', 'Unknown', '2026-11-29T11:00:00Z', 'NodeStatusUnknown'),
          cond('KernelReady', 'False', '2026-11-29T11:05:00Z', 'KernelBug'),
          cond('MemoryPressure', 'True', '2026-11-29T11:06:00Z'),
          cond('StorageReady', 'True', '2026-11-29T11:07:00Z'),
        ],
      },
    });
    expect(node.unhealthy).toEqual([
      { type: 'Ready', status: 'Unknown', since: Date.parse('2026-11-29T11:00:00Z'), reason: 'NodeStatusUnknown' },
      { type: 'KernelReady', status: 'False', since: Date.parse('2026-11-29T11:05:00Z'), reason: 'KernelBug' },
    ]);
    expect(nodeFromKube({ metadata: { name: 'ok' }, status: { conditions: [cond('Ready', 'True', '2026-11-29T11:00:00Z')] } }).unhealthy).toBeUndefined();
  });

  it('should share the budget and the rate with the methods after it: one repair and no drift under a budget of one', () => {
    const p = pool({ budgets: [{ nodes: '1' }], consolidateAfter: null });
    const sickOne = sick(managed('x', { pool: p, type: c6g.xlarge }), 'KernelReady', 'False', 31 * 60);
    const drifted = managed('d', { pool: p, type: c6g.xlarge, driftedCondition: { reason: 'AMIDrift', at: (NOW - 60_000) as never } });
    const nodes = [sickOne, drifted, ...['a', 'b', 'c', 'e'].map((n) => healthy(n, p))];
    const d = decide(nodes, p);
    expect(d.repairs).toHaveLength(1);
    expect(d.command).toBeUndefined();
    p.disruption.budgets = [{ nodes: '100%' }];
    p.disruption.rate = { nodes: '1', windowSeconds: 3600 };
    const rated = decide(nodes, p);
    expect(rated.repairs).toHaveLength(1);
    expect(rated.command).toBeUndefined();
  });

  it('should replace rather than reboot a node whose pods a PDB or do-not-disrupt protects (a reboot stops them all at once)', () => {
    const p = pool({ budgets: [{ nodes: '100%' }], consolidateAfter: null });
    const kernel = sick(managed('k', { pool: p, type: c6g.xlarge }), 'KernelReady', 'False', 31 * 60);
    const others = ['a', 'b', 'c', 'e', 'f'].map((n) => healthy(n, p));
    const pods = [...[kernel, ...others].map((n) => bound(n, { cpu: '3' }))];
    pods[0].annotations = { 'karpenter.sh/do-not-disrupt': 'true' };
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [kernel, ...others], pods }), types));
    expect(d.repairs[0]).toMatchObject({ action: 'replace' });
  });
});
