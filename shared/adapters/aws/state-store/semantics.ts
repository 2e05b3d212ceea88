/**
 * Semantics shared by every StateStore implementation (memory and DynamoDB), so both answer the same way.
 */
import type { AuditRecord, OfferingKey } from '../../../core/ports/state-store';

/** When `auditLog` is called without `sinceMs`, records of the last 7 days are returned. */
export const DEFAULT_AUDIT_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** Audit records are kept 30 days unless the store is told otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 30;

export class StateStoreInputInvalidError extends Error {
  override readonly name = 'StateStoreInputInvalidError' as const;
}

/** `capacityType:instanceType:zone`, Karpenter's ICE cache key (docs/karpenter-reference.md §3.4). */
export function offeringKey(o: OfferingKey): string {
  return `${o.capacityType}:${o.instanceType}:${o.zone}`;
}

export function requirePositiveTtl(what: string, ttlSeconds: number): void {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new StateStoreInputInvalidError(`${what}: ttlSeconds must be a positive number of seconds, got ${String(ttlSeconds)}`);
  }
}

export function requireName(what: string, field: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StateStoreInputInvalidError(`${what}: ${field} must be a non-empty string`);
  }
}

/** Filters by kind and time, orders oldest first, and keeps the newest `limit` records. */
export function selectAudit(records: AuditRecord[], now: number, query?: { sinceMs?: number; kind?: AuditRecord['kind']; limit?: number }): AuditRecord[] {
  const since = query?.sinceMs ?? now - DEFAULT_AUDIT_WINDOW_MS;
  const out = records.filter((r) => r.at >= since && (query?.kind === undefined || r.kind === query.kind)).sort((a, b) => a.at - b.at);
  const limit = query?.limit;
  return limit !== undefined && limit >= 0 && out.length > limit ? out.slice(out.length - limit) : out;
}

/** UTC day (yyyy-mm-dd) of a timestamp: the audit log is partitioned per day. */
export function auditDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Every UTC day from `fromMs` to `toMs` inclusive, oldest first. */
export function auditDays(fromMs: number, toMs: number): string[] {
  const days: string[] = [];
  const dayMs = 24 * 3600 * 1000;
  for (let t = Math.floor(fromMs / dayMs) * dayMs; t <= toMs; t += dayMs) days.push(auditDay(t));
  return days;
}
