/**
 * The `controller` lease: one controller invocation at a time, handed over from one scheduled invocation to
 * the next without a gap (the holder names its planned end; the next heartbeat waits for it when it is near).
 *
 * A lease is a promise about time, so it is judged on the clock *after* the store answers: a write sent at `t`
 * that succeeded makes the lease ours until `t + TTL` (the store computes its expiry from the send time; an
 * answer the SDK retried for 45 s may come back after that). Every action of the holder is fenced on the lease
 * being ours for a margin more at the moment it starts (`HeldLease.valid`), renewals run beside the loop (a slow
 * store never holds up the watches), and one that fails is tried again within seconds while the lease lasts —
 * and after it lapsed, until it is renewed (nobody took it: the holder goes on, with warm watches) or found lost.
 */
import type { Clock, StateStore } from '../ports';
import type { LifecycleLogger } from './deps';
import { addMs, addSeconds, type EpochMs } from '../time';
import { errorText } from '../errors';

export const CONTROLLER_LEASE = 'controller';
const LEASE_TTL_SECONDS = 30;
const RENEW_EVERY_MS = 10_000;
/** A renewal that failed (throttled, timed out) is tried again this soon. */
const RENEW_RETRY_MS = 2_000;
/** No action starts unless the lease is ours this much longer (clock skew, the request reaching its service). */
const LEASE_MARGIN_MS = 5_000;
/** A heartbeat that finds the lease held waits for the holder's planned end when it is this close (ticks are 60 s apart). */
const HANDOVER_WINDOW_MS = 65_000;
/** A heartbeat that cannot reach the store keeps trying this long from the first failure (about the minute to the next heartbeat). */
const STORE_OUTAGE_POLL_MS = 50_000;

export interface LeaseDeps {
  store: StateStore;
  clock: Clock;
  log: LifecycleLogger;
}

/**
 * Waits for the lease: at once if free, or until the holder hands over if that is within the window. Resolves to
 * the time the winning write was sent (the lease is ours until then + TTL), or undefined.
 */
export async function acquire(deps: LeaseDeps, holder: string, untilMs: EpochMs): Promise<EpochMs | undefined> {
  let giveUpAt: number | undefined;
  for (;;) {
    const sentAt = deps.clock.now();
    let current: Awaited<ReturnType<StateStore['readLease']>>;
    try {
      if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, untilMs)) return sentAt;
      current = await deps.store.readLease(CONTROLLER_LEASE);
    } catch (e) {
      // Throttled or down: keep trying until the next heartbeat's turn, so a hand-over during a throttle is not a
      // minute lost (the holder's lease runs out meanwhile; this takes it as soon as the store answers).
      const now = deps.clock.now();
      if (giveUpAt === undefined) deps.log.warn('controller lease unavailable; retrying', { holder, error: errorText(e) });
      giveUpAt ??= now + STORE_OUTAGE_POLL_MS;
      if (now + RENEW_RETRY_MS >= giveUpAt || now + 2 * RENEW_EVERY_MS >= untilMs) {
        deps.log.warn('controller lease unavailable; the next heartbeat retries', { holder, error: errorText(e) });
        return undefined;
      }
      await deps.clock.sleep(RENEW_RETRY_MS);
      continue;
    }
    const now = deps.clock.now();
    const handsOverAt = current ? (current.untilMs ?? current.expiresAt) : now;
    if (handsOverAt - now > HANDOVER_WINDOW_MS || now + 2 * RENEW_EVERY_MS >= untilMs) return undefined;
    // Sleep until the planned hand-over, then poll each second: a minute of 1 s polls would be 60 writes.
    await deps.clock.sleep(Math.max(1_000, handsOverAt - now));
  }
}

/** Renews the lease: `held`, `lost` (another holder took it: stop), or `unknown` (a store error: retry while it lasts). */
async function renew(deps: LeaseDeps, holder: string, end: EpochMs, failures: number): Promise<'held' | 'lost' | 'unknown'> {
  try {
    if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, end)) return 'held';
    deps.log.warn('controller lease lost; stopping', { holder });
    return 'lost';
  } catch (e) {
    // Retried every 2 s while the store fails: the first failure of a run and every tenth are logged.
    if (failures % 10 === 0) deps.log.warn('controller lease renewal failed; retrying', { holder, error: errorText(e), failures: failures + 1 });
    return 'unknown';
  }
}

class LeaseNotHeldError extends Error {
  override readonly name = 'LeaseNotHeldError' as const;
}

/** The lease while the controller holds it: renewed beside the loop, and the fence of every action. */
export class HeldLease {
  /** Another holder took it: the loop stops. */
  lost = false;
  private validUntil: EpochMs;
  private nextRenewAt: EpochMs;
  private renewing = false;
  private lapsed = false;
  /** Renewals failed in a row. */
  private failures = 0;

  constructor(
    private readonly deps: LeaseDeps,
    private readonly holder: string,
    private readonly end: EpochMs,
    acquiredAt: EpochMs,
    /** Told when a renewal ends (the loop looks again). */
    private readonly changed: () => void,
  ) {
    this.validUntil = addSeconds(acquiredAt, LEASE_TTL_SECONDS);
    this.nextRenewAt = addMs(acquiredAt, RENEW_EVERY_MS);
  }

  /** The lease is ours for at least the margin beyond `now`. */
  valid(now: EpochMs): boolean {
    return now + LEASE_MARGIN_MS <= this.validUntil;
  }

  /** When a renewal is next due (Infinity while one is in flight: its end wakes the loop). */
  get nextAt(): number {
    return this.renewing ? Infinity : this.nextRenewAt;
  }

  /** Starts a renewal when one is due; never waited for. */
  tick(now: EpochMs): void {
    if (this.lost || this.renewing || now < this.nextRenewAt) return;
    this.renewing = true;
    void this.renew(now).finally(() => {
      this.renewing = false;
      this.changed();
    });
  }

  private async renew(sentAt: EpochMs): Promise<void> {
    const answer = await renew(this.deps, this.holder, this.end, this.failures);
    this.failures = answer === 'unknown' ? this.failures + 1 : 0;
    const now = this.deps.clock.now();
    if (answer === 'lost') {
      this.lost = true;
      return;
    }
    if (answer === 'held' && addSeconds(sentAt, LEASE_TTL_SECONDS) > this.validUntil) this.validUntil = addSeconds(sentAt, LEASE_TTL_SECONDS);
    // A success answered in time renews on schedule; a failure, or one answered too late to count, is tried again soon.
    this.nextRenewAt = answer === 'held' && this.valid(now) ? addMs(sentAt, RENEW_EVERY_MS) : addMs(now, answer === 'held' ? 0 : RENEW_RETRY_MS);
    if (this.valid(now) === !this.lapsed) return;
    this.lapsed = !this.lapsed;
    if (this.lapsed) this.deps.log.warn('controller lease may have expired; starting nothing until it is renewed', { holder: this.holder });
    else this.deps.log.info('controller lease renewed; going on', { holder: this.holder });
  }

  /** `fn`, refused (LeaseNotHeldError) unless the lease is valid at the moment it is called. */
  fence<A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      if (!this.valid(this.deps.clock.now())) throw new LeaseNotHeldError(`${what}: the controller lease may have expired`);
      return fn(...args);
    };
  }
}
