/**
 * Deterministic names. Idempotency comes from names (DESIGN.md): a NodeClaim name is the CreateFleet
 * ClientToken and the `launch` execution name, so names are derived from content, never from randomness.
 */

/** FNV-1a 64-bit over UTF-16 code units, as a BigInt. Pure and stable across runs. */
function stableHash(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * prime) & mask;
  }
  return h;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `length` lowercase alphanumerics derived from `seed`. */
export function stableSuffix(seed: string, length = 5): string {
  let h = stableHash(seed);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[Number(h % 36n)];
    h /= 36n;
    if (h === 0n) h = stableHash(seed + out);
  }
  return out;
}

/** `<nodepool>-<5 lowercase alnum>` from the claim's pod UIDs and the planning time. */
export function nodeClaimName(nodePool: string, podUids: readonly string[], nowMs: number, index = 0): string {
  const seed = `${nodePool}|${[...podUids].sort().join(',')}|${nowMs}|${index}`;
  return `${nodePool}-${stableSuffix(seed)}`;
}

/** Step Functions execution names: 1..80 chars of [A-Za-z0-9-_]. */
export function executionName(...parts: string[]): string {
  const raw = parts
    .filter((p) => p.length > 0)
    .join('-')
    .replace(/[^A-Za-z0-9_-]/g, '-');
  if (raw.length <= 80) return raw;
  return `${raw.slice(0, 73)}-${stableSuffix(raw, 6)}`;
}
