/** The quiet disruption audit writes a node's "why nothing" again only when it changed, or an hour on (quiet-audit.ts). */
import { describe, expect, it } from 'vitest';
import { QUIET_AUDIT_REFRESH_MS, QuietAudit } from '../../../shared/core/lifecycle/quiet-audit';
import type { AuditRecord } from '../../../shared/core/ports';
import { epochMs, type EpochMs } from '../../../shared/core/time';

const T0 = epochMs(Date.UTC(2026, 10, 29, 12));
const at = (minutes: number): EpochMs => epochMs(T0 + minutes * 60_000);
const skipped = (node: string, why: string, minutes: number): AuditRecord => ({
  at: at(minutes),
  kind: 'disruption',
  action: 'skipped',
  nodeClaims: [`claim-${node}`],
  nodes: [node],
  detail: { method: 'candidates', why },
});

/** One quiet pass every 10 minutes: the records written at each. */
function written(audit: QuietAudit, minutes: number, records: AuditRecord[]): string[] {
  const due = audit.due(records, at(minutes));
  audit.wrote(due, at(minutes));
  return due.map((d) => `${d.record.nodes?.[0]}: ${String(d.record.detail?.why)}`);
}

describe('the quiet disruption audit', () => {
  it('should write every node once, then only the nodes whose why changed', () => {
    // Prepare
    const audit = new QuietAudit();
    const pass = (m: number, whyB: string) => [skipped('a', 'pdb web blocks eviction', m), skipped('b', whyB, m)];
    // Act
    const first = written(audit, 0, pass(0, 'not empty'));
    const second = written(audit, 10, pass(10, 'not empty'));
    const third = written(audit, 20, pass(20, 'do-not-disrupt on pod db-0'));
    // Assess
    expect(first).toEqual(['a: pdb web blocks eviction', 'b: not empty']);
    expect(second).toEqual([]);
    expect(third).toEqual(['b: do-not-disrupt on pod db-0']);
  });

  it('should write an unchanged why again an hour after it was last written, so an audit of the last hour finds every node', () => {
    // Prepare
    const audit = new QuietAudit();
    written(audit, 0, [skipped('a', 'not empty', 0)]);
    // Act
    const before = written(audit, 50, [skipped('a', 'not empty', 50)]);
    const after = written(audit, QUIET_AUDIT_REFRESH_MS / 60_000, [skipped('a', 'not empty', 60)]);
    // Assess
    expect(before).toEqual([]);
    expect(after).toEqual(['a: not empty']);
  });

  it('should write a node again when it comes back after leaving the quiet passes', () => {
    // Prepare
    const audit = new QuietAudit();
    written(audit, 0, [skipped('a', 'not empty', 0), skipped('b', 'not empty', 0)]);
    written(audit, 10, [skipped('b', 'not empty', 10)]);
    // Act
    const back = written(audit, 20, [skipped('a', 'not empty', 20), skipped('b', 'not empty', 20)]);
    // Assess
    expect(back).toEqual(['a: not empty']);
  });

  it('should not count records it was not told were written', () => {
    // Prepare
    const audit = new QuietAudit();
    audit.due([skipped('a', 'not empty', 0)], at(0));
    // Act
    const retried = audit.due([skipped('a', 'not empty', 10)], at(10));
    // Assess
    expect(retried.map((d) => d.record.nodes)).toEqual([['a']]);
  });
});
