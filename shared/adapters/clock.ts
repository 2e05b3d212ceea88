/** The wall clock, for production (core code receives it through the Clock port). */
import type { Clock } from '../core/ports';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
