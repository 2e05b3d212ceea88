/** The wall clock, for production (core code receives it through the Clock port). */
import type { Clock } from '../core/ports';
import { epochMs } from '../core/time';

export const systemClock: Clock = {
  now: () => epochMs(Date.now()),
  sleep: (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
