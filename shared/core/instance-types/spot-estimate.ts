/**
 * nodewright's spot price estimate, used when no spot price was quoted (offline, simulator, before the first
 * DescribeSpotPriceHistory). It is a pure, deterministic function of the instance type name, its family and the
 * zone: a discount off on-demand in the 55–75 % range (docs/instance-types.md).
 *
 * discount = base(category) + generation term + family term (±3 pts) + size term (±1 pt) + zone term (±1.5 pts),
 * clamped to [0.55, 0.75]. Terms are derived from FNV-1a hashes of the strings, never from randomness.
 */

const SPOT_DISCOUNT_MIN = 0.55;
const SPOT_DISCOUNT_MAX = 0.75;

/** Base discount by instance category (the letters before the generation digit). */
const CATEGORY_BASE: Record<string, number> = {
  t: 0.64,
  m: 0.65,
  a: 0.65,
  c: 0.63,
  r: 0.67,
  x: 0.66,
  z: 0.64,
  u: 0.62,
  i: 0.68,
  im: 0.68,
  is: 0.68,
  d: 0.68,
  h: 0.67,
  p: 0.58,
  g: 0.6,
  gr: 0.6,
  inf: 0.6,
  trn: 0.58,
  dl: 0.57,
  dl2q: 0.57,
  vt: 0.6,
  f: 0.6,
  hpc: 0.56,
};
const DEFAULT_BASE = 0.63;

/** FNV-1a 32-bit hash mapped to [0, 1). */
function unitHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 2 ** 32;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** The estimated spot discount (fraction of on-demand saved) for a type in a zone. */
export function estimatedSpotDiscount(instanceType: string, family: string, zone: string): number {
  const m = /^([a-z]+)(?:-[0-9]+tb)?([0-9]*)/.exec(family);
  const category = m?.[1] ?? family;
  const generation = m?.[2] ? Number(m[2]) : 5;
  const base = CATEGORY_BASE[category] ?? DEFAULT_BASE;
  // Older generations are discounted more deeply, the newest less.
  const generationTerm = clamp((5 - generation) * 0.012, -0.04, 0.04);
  const familyTerm = (unitHash(family) - 0.5) * 0.06;
  const sizeTerm = (unitHash(instanceType) - 0.5) * 0.02;
  const zoneTerm = (unitHash(`${family}@${zone}`) - 0.5) * 0.03;
  return clamp(base + generationTerm + familyTerm + sizeTerm + zoneTerm, SPOT_DISCOUNT_MIN, SPOT_DISCOUNT_MAX);
}

/** Estimated spot price (USD/h, rounded to 5 decimals and never above on-demand) for an on-demand price. */
export function estimateSpotPrice(instanceType: string, family: string, zone: string, onDemand: number): number {
  const price = Math.round(onDemand * (1 - estimatedSpotDiscount(instanceType, family, zone)) * 1e5) / 1e5;
  return Math.min(Math.max(price, 0.00001), onDemand);
}
