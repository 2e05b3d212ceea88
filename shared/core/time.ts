/**
 * The one unit of time for instants in the core and its ports: milliseconds since the Unix epoch, branded so a
 * seconds value (or any bare number) cannot be passed where an instant is expected without a compile error.
 * Durations stay plain numbers whose name carries the unit (`budgetMs`, `ttlSeconds`, `expireAfter` in seconds as
 * the NodePool API writes it); an instant minus an instant is such a number. Kubernetes' RFC 3339 strings become
 * `EpochMs` at the edges (manifest parsing, the Kubernetes and AWS adapters, the simulator).
 */
export type EpochMs = number & { readonly __unit: 'epoch-ms' };

/** Brands a number that already is milliseconds since the epoch (a clock reading, `Date.getTime()`). */
export const epochMs = (ms: number): EpochMs => ms as EpochMs;

/** Seconds since the epoch → an instant. */
export const fromSeconds = (seconds: number): EpochMs => (seconds * 1000) as EpochMs;

/** An instant → seconds since the epoch (not rounded: the value the model held before it was milliseconds). */
export const toSeconds = (t: EpochMs): number => t / 1000;

/** The instant `seconds` after `t`: a Kubernetes duration (expireAfter, consolidateAfter…) added to an instant. */
export const addSeconds = (t: EpochMs, seconds: number): EpochMs => (t + seconds * 1000) as EpochMs;

/** The instant `ms` milliseconds after `t`. */
export const addMs = (t: EpochMs, ms: number): EpochMs => (t + ms) as EpochMs;

/** Truncated to the whole second, as a Kubernetes metav1.Time holds it (the core writes timestamps this way). */
export const wholeSecond = (t: EpochMs): EpochMs => (Math.floor(t / 1000) * 1000) as EpochMs;

/** An instant → RFC 3339 with second precision, as metav1.Time serializes. */
export function toRfc3339(t: EpochMs): string {
  return new Date(wholeSecond(t)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
