import type { CapacityTypeValue } from '../model/labels';
import type { EpochMs } from '../time';

export interface OfferingKey {
  instanceType: string;
  zone: string;
  capacityType: CapacityTypeValue;
}

export interface UnavailableOffering extends OfferingKey {
  reason: string;
  expiresAt: EpochMs;
}

export interface AuditRecord {
  at: EpochMs;
  kind: 'provisioning' | 'disruption' | 'interruption' | 'termination' | 'garbage-collection';
  /** e.g. "launched", "disrupting", "rejected", "skipped". */
  action: string;
  reason?: string;
  nodeClaims?: string[];
  nodes?: string[];
  savingsPerHour?: number;
  detail?: Record<string, unknown>;
}

export interface LeaseInfo {
  holder: string;
  expiresAt: EpochMs;
  /** The holder's planned hand-over time, when it gave one. */
  untilMs?: EpochMs;
}

/** Small shared state that must outlive one invocation. */
export interface StateStore {
  markUnavailable(offering: OfferingKey, ttlSeconds: number, reason: string): Promise<void>;
  unavailableOfferings(): Promise<UnavailableOffering[]>;
  /**
   * True when the lease was acquired (or renewed by the same holder). `untilMs` tells a successor when the
   * holder means to hand over (the controller's planned end), so it can wait for it instead of leaving a gap.
   */
  acquireLease(name: string, holder: string, ttlSeconds: number, untilMs?: EpochMs): Promise<boolean>;
  /** The current, unexpired lease, if any. */
  readLease(name: string): Promise<LeaseInfo | undefined>;
  releaseLease(name: string, holder: string): Promise<void>;
  audit(record: AuditRecord): Promise<void>;
  auditLog(query?: { sinceMs?: EpochMs; kind?: AuditRecord['kind']; limit?: number }): Promise<AuditRecord[]>;
  /** Stores a region's on-demand list prices (refreshed from the Price List API); replaces the previous ones. */
  putOnDemandPrices?(region: string, prices: StoredPrices): Promise<void>;
  /** The region's stored on-demand list prices, if any were stored. */
  onDemandPrices?(region: string): Promise<StoredPrices | undefined>;
}

export interface StoredPrices {
  /** Instance type → USD per hour. */
  prices: Record<string, number>;
  fetchedAt: EpochMs;
}
