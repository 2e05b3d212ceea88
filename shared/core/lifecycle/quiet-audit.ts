/**
 * The "why nothing" audit of a quiet disruption pass (every node, and why it was left alone) is written only where it
 * says something new: a record is written when it differs from the last one this container wrote for the same
 * subject (its kind, action, NodeClaims and nodes), or when that one is an hour old, so `nodewright audit --since 1h`
 * still finds every node. Writing every node's record every 10 minutes was 720,000 DynamoDB writes a day at 5,000
 * nodes (docs/controller-cost.md, "At 5,000 nodes"). A new container writes everything once.
 */
import type { AuditRecord } from '../ports';
import type { EpochMs } from '../time';

/** A node's unchanged why is written again after this long. */
export const QUIET_AUDIT_REFRESH_MS = 60 * 60_000;

interface Pending {
  record: AuditRecord;
  subject: string;
  content: string;
}

export class QuietAudit {
  private readonly written = new Map<string, { content: string; at: EpochMs }>();

  /** The records to write now; `wrote` is told once they are. Subjects no longer in a quiet pass are forgotten. */
  due(records: readonly AuditRecord[], now: EpochMs): Pending[] {
    const seen = new Set<string>();
    const out: Pending[] = [];
    for (const record of records) {
      const { at: _at, ...rest } = record;
      const subject = JSON.stringify([record.kind, record.action, record.nodeClaims ?? [], record.nodes ?? []]);
      const content = JSON.stringify(rest);
      seen.add(subject);
      const last = this.written.get(subject);
      if (last && last.content === content && now - last.at < QUIET_AUDIT_REFRESH_MS) continue;
      out.push({ record, subject, content });
    }
    for (const subject of [...this.written.keys()]) if (!seen.has(subject)) this.written.delete(subject);
    return out;
  }

  wrote(written: readonly Pending[], now: EpochMs): void {
    for (const w of written) this.written.set(w.subject, { content: w.content, at: now });
  }
}
