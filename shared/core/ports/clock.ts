/** Time enters the core only through this port, so the simulator can run an hour in seconds. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}
