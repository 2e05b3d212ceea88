import type { CapacityTypeValue } from '../model/labels';

export interface OfferingKey {
  instanceType: string;
  zone: string;
  capacityType: CapacityTypeValue;
}

export interface UnavailableOffering extends OfferingKey {
  reason: string;
  /** Milliseconds since epoch. */
  expiresAt: number;
}

export interface AuditRecord {
  /** Milliseconds since epoch. */
  at: number;
  kind: 'provisioning' | 'disruption' | 'interruption' | 'termination' | 'garbage-collection';
  /** e.g. "launched", "disrupting", "rejected", "skipped". */
  action: string;
  reason?: string;
  nodeClaims?: string[];
  nodes?: string[];
  savingsPerHour?: number;
  detail?: Record<string, unknown>;
}

/** Small shared state that must outlive one invocation. */
export interface StateStore {
  markUnavailable(offering: OfferingKey, ttlSeconds: number, reason: string): Promise<void>;
  unavailableOfferings(): Promise<UnavailableOffering[]>;
  /** True when the lease was acquired (or renewed by the same holder). */
  acquireLease(name: string, holder: string, ttlSeconds: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  audit(record: AuditRecord): Promise<void>;
  auditLog(query?: { sinceMs?: number; kind?: AuditRecord['kind']; limit?: number }): Promise<AuditRecord[]>;
}
