/** Disruption events (issue #13 item 1): Karpenter's DisruptionBlocked and DisruptionTerminating wording. */
import { describe, expect, it } from 'vitest';
import { blockedEvents, disruptingEvents } from '../../../shared/core/disruption';
import type { Command, DisruptionAuditRecord } from '../../../shared/core/disruption/types';

const skipped = (why: string, detail: Record<string, unknown> = {}): DisruptionAuditRecord => ({
  at: 0, kind: 'disruption', action: 'skipped', nodeClaims: ['default-a'], nodes: ['node-a'], detail: { method: 'candidates', why, ...detail },
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
