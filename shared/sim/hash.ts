/** Deterministic draws for the simulator: everything "random" is a hash of the seed and what it is for. */
import { createHash } from 'node:crypto';

export function hashHex(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('|')).digest('hex');
}

/** A number in [0, 1) from the same hash (its first 32 bits). */
export function hashUnit(...parts: (string | number)[]): number {
  return Number.parseInt(hashHex(...parts).slice(0, 8), 16) / 0x1_0000_0000;
}
