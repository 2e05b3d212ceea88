/**
 * The `controller` lease: one controller invocation at a time, handed over from one scheduled invocation to
 * the next without a gap (the holder names its planned end; the next heartbeat waits for it when it is near).
 */
import type { Clock, StateStore } from '../ports';
import type { LifecycleLogger } from './deps';
import type { EpochMs } from '../time';

export const CONTROLLER_LEASE = 'controller';
export const LEASE_TTL_SECONDS = 30;
export const RENEW_EVERY_MS = 10_000;
/** A heartbeat that finds the lease held waits for the holder's planned end when it is this close (ticks are 60 s apart). */
const HANDOVER_WINDOW_MS = 65_000;

export interface LeaseDeps {
  store: StateStore;
  clock: Clock;
  log: LifecycleLogger;
}

/** Waits for the lease: at once if free, or until the holder hands over if that is within the window. */
export async function acquire(deps: LeaseDeps, holder: string, untilMs: EpochMs): Promise<boolean> {
  for (;;) {
    let current: Awaited<ReturnType<StateStore['readLease']>>;
    try {
      if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, untilMs)) return true;
      current = await deps.store.readLease(CONTROLLER_LEASE);
    } catch (e) {
      // The store is throttled or down: the next heartbeat (a minute away) tries again.
      deps.log.warn('controller lease unavailable; the next heartbeat retries', { holder, error: e instanceof Error ? e.message : String(e) });
      return false;
    }
    const now = deps.clock.now();
    const handsOverAt = current ? (current.untilMs ?? current.expiresAt) : now;
    if (handsOverAt - now > HANDOVER_WINDOW_MS || now + 2 * RENEW_EVERY_MS >= untilMs) return false;
    // Sleep until the planned hand-over, then poll each second: a minute of 1 s polls would be 60 writes.
    await deps.clock.sleep(Math.max(1_000, handsOverAt - now));
  }
}

/** Renews the lease: `held`, `lost` (another holder took it: stop), or `unknown` (a store error: retry while it lasts). */
export async function renew(deps: LeaseDeps, holder: string, end: EpochMs): Promise<'held' | 'lost' | 'unknown'> {
  try {
    if (await deps.store.acquireLease(CONTROLLER_LEASE, holder, LEASE_TTL_SECONDS, end)) return 'held';
    deps.log.warn('controller lease lost; stopping', { holder });
    return 'lost';
  } catch (e) {
    deps.log.warn('controller lease renewal failed; retrying', { holder, error: e instanceof Error ? e.message : String(e) });
    return 'unknown';
  }
}
