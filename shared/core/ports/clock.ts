import type { EpochMs } from '../time';

/** Time enters the core only through this port, so the simulator can run an hour in seconds. */
export interface Clock {
  now(): EpochMs;
  /** Resolves after `ms`, or early (without error) when `signal` aborts: a wait that an event can cut short. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
