/** Disruption events (issue #13 item 1): Karpenter's DisruptionBlocked and DisruptionTerminating wording. */
import { describe, expect, it } from 'vitest';
import { blockedEvents, budgetBlockedEvents, computeDisruption, disruptingEvents, unconsolidatableEvents } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, pool } from './builders';
import type { Command, DisruptionAuditRecord } from '../../../shared/core/disruption/types';
import { epochMs } from '../../../shared/core/time';

const skipped = (why: string, detail: Record<string, unknown> = {}): DisruptionAuditRecord => ({
  at: epochMs(0),
  kind: 'disruption',
  action: 'skipped',
  nodeClaims: ['default-a'],
  nodes: ['node-a'],
  detail: { method: 'candidates', why, ...detail },
});

describe('blockedEvents', () => {
  it('should say on the Node and its NodeClaim what blocks disruption: a PDB or a do-not-disrupt annotation', () => {
    // Act
    const events = blockedEvents([
      skipped('pdb "default/web" prevents pod evictions', { blocker: 'pdb', deadlock: false }),
      { ...skipped('node has karpenter.sh/do-not-disrupt: "true"'), nodeClaims: ['default-b'], nodes: ['node-b'] },
      { ...skipped('consolidateAfter not elapsed'), nodeClaims: ['default-c'], nodes: ['node-c'] },
    ]);
    // Assess
    expect(events.map((e) => `${e.object.kind}/${e.object.name} ${e.type} ${e.reason}: ${e.message}`)).toEqual([
      'Node/node-a Normal DisruptionBlocked: Pdb "default/web" prevents pod evictions',
      'NodeClaim/default-a Normal DisruptionBlocked: Pdb "default/web" prevents pod evictions',
      'Node/node-b Normal DisruptionBlocked: Node has karpenter.sh/do-not-disrupt: "true"',
      'NodeClaim/default-b Normal DisruptionBlocked: Node has karpenter.sh/do-not-disrupt: "true"',
    ]);
  });
});

describe('unconsolidatableEvents', () => {
  it('should say why single-node consolidation cannot do better for a node, not for budgets or notes', () => {
    // Prepare
    const rejected = (why: string, extra: Record<string, unknown> = {}): DisruptionAuditRecord => ({
      at: epochMs(0),
      kind: 'disruption',
      action: 'rejected',
      nodeClaims: ['default-a'],
      nodes: ['node-a'],
      detail: { method: 'single-node', why, ...extra },
    });
    // Act
    const events = unconsolidatableEvents([
      rejected('no cheaper replacement: the cheapest type that holds its pods is not below $0.096/h'),
      rejected('budget: nodes 10% of 3 = 0'),
      rejected('considered: something', { considered: true }),
    ]);
    // Assess
    expect(events.map((e) => `${e.object.kind}/${e.object.name} ${e.reason} (${e.dedupeSeconds}s): ${e.message}`)).toEqual([
      'Node/node-a Unconsolidatable (900s): No cheaper replacement: the cheapest type that holds its pods is not below $0.096/h',
      'NodeClaim/default-a Unconsolidatable (900s): No cheaper replacement: the cheapest type that holds its pods is not below $0.096/h',
    ]);
  });
});

describe('disruptingEvents', () => {
  it('should record DisruptionTerminating with the reason in title case on each candidate', () => {
    // Prepare
    const cmd = { reason: 'underutilized', candidates: [{ node: { name: 'node-a' }, nodeClaim: { name: 'default-a' } }] } as unknown as Command;
    // Act / Assess
    expect(disruptingEvents(cmd).map((e) => `${e.object.kind}/${e.object.name} ${e.reason}: ${e.message}`)).toEqual([
      'Node/node-a DisruptionTerminating: Disrupting Node: Underutilized',
      'NodeClaim/default-a DisruptionTerminating: Disrupting NodeClaim: Underutilized',
    ]);
  });
});

describe('budgetBlockedEvents', () => {
  it("should say on the NodePool that its budget allows no disruption for a reason, in Karpenter's words, once a minute", () => {
    // Prepare: a budget of 0 nodes for Underutilized and Empty only; Drifted unlimited.
    const p = pool({ budgets: [{ nodes: '0', reasons: ['Underutilized', 'Empty'] }] });
    const a = managed('a', { pool: p, type: c6g.x2large });
    const b = managed('b', { pool: p, type: c6g.x2large });
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a, b], pods: [bound(a, { name: 'web-a' })] }), [c6g.large, c6g.x2large]));
    // Act
    const events = budgetBlockedEvents(d.blockedBudgets);
    // Assess
    expect(d.command).toBeUndefined();
    expect(events.map((e) => `${e.object.kind}/${e.object.name} ${e.type} ${e.reason} (${e.dedupeSeconds}s): ${e.message}`)).toEqual([
      `NodePool/${p.name} Normal DisruptionBlocked (60s): No allowed disruptions for disruption reason Empty due to blocking budget`,
      `NodePool/${p.name} Normal DisruptionBlocked (60s): No allowed disruptions for disruption reason Underutilized due to blocking budget`,
    ]);
  });

  it('should say nothing for a NodePool without nodes', () => {
    const p = pool({ budgets: [{ nodes: '0' }] });
    expect(computeDisruption(input(cluster({ pools: [p], nodes: [], pods: [] }), [c6g.large])).blockedBudgets).toEqual([]);
  });
});
