import type { Clock } from '../../../core/ports/clock';
import type { AuditRecord, LeaseInfo, OfferingKey, StateStore, StoredPrices, UnavailableOffering } from '../../../core/ports/state-store';
import { DEFAULT_AUDIT_RETENTION_DAYS, offeringKey, requireName, requirePositiveTtl, selectAudit } from './semantics';
import { addSeconds, type EpochMs } from '../../../core/time';

interface Lease {
  holder: string;
  expiresAt: EpochMs;
  untilMs?: EpochMs;
}

/**
 * In-process StateStore with the same semantics as DynamoStateStore: entries expire by the injected
 * clock, a lease is exclusive until it expires or its holder releases it. For tests and the simulator.
 */
export class MemoryStateStore implements StateStore {
  private readonly offerings = new Map<string, UnavailableOffering>();
  private readonly leases = new Map<string, Lease>();
  private records: AuditRecord[] = [];
  private readonly prices = new Map<string, StoredPrices>();

  async putOnDemandPrices(region: string, prices: StoredPrices): Promise<void> {
    this.prices.set(region, { prices: { ...prices.prices }, fetchedAt: prices.fetchedAt });
  }

  async onDemandPrices(region: string): Promise<StoredPrices | undefined> {
    const p = this.prices.get(region);
    return p ? { prices: { ...p.prices }, fetchedAt: p.fetchedAt } : undefined;
  }

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly auditRetentionDays = DEFAULT_AUDIT_RETENTION_DAYS,
  ) {}

  async markUnavailable(offering: OfferingKey, ttlSeconds: number, reason: string): Promise<void> {
    requirePositiveTtl('markUnavailable', ttlSeconds);
    const { instanceType, zone, capacityType } = offering;
    this.offerings.set(offeringKey(offering), { instanceType, zone, capacityType, reason, expiresAt: addSeconds(this.clock.now(), ttlSeconds) });
  }

  async unavailableOfferings(): Promise<UnavailableOffering[]> {
    const now = this.clock.now();
    const out: UnavailableOffering[] = [];
    for (const [key, o] of this.offerings) {
      if (o.expiresAt > now) out.push({ ...o });
      else this.offerings.delete(key);
    }
    return out;
  }

  async acquireLease(name: string, holder: string, ttlSeconds: number, untilMs?: EpochMs): Promise<boolean> {
    requireName('acquireLease', 'name', name);
    requireName('acquireLease', 'holder', holder);
    requirePositiveTtl('acquireLease', ttlSeconds);
    const now = this.clock.now();
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.expiresAt > now) return false;
    this.leases.set(name, { holder, expiresAt: addSeconds(now, ttlSeconds), ...(untilMs !== undefined ? { untilMs } : {}) });
    return true;
  }

  async readLease(name: string): Promise<LeaseInfo | undefined> {
    const current = this.leases.get(name);
    return current && current.expiresAt > this.clock.now() ? { ...current } : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    const current = this.leases.get(name);
    if (current && current.holder === holder) this.leases.delete(name);
  }

  async audit(record: AuditRecord): Promise<void> {
    this.records.push(structuredClone(record));
  }

  async auditLog(query?: { sinceMs?: number; kind?: AuditRecord['kind']; limit?: number }): Promise<AuditRecord[]> {
    const now = this.clock.now();
    const oldest = now - this.auditRetentionDays * 24 * 3600 * 1000;
    this.records = this.records.filter((r) => r.at >= oldest);
    return selectAudit(this.records, now, query).map((r) => structuredClone(r));
  }
}
