/** Go-style durations ("720h", "1m30s", "15s", "Never") → seconds. `null` means Never. */
export class DurationParseError extends Error {
  override readonly name = 'DurationParseError' as const;
  constructor(readonly input: unknown) {
    super(`invalid duration ${JSON.stringify(input)} (expected e.g. "30s", "1m", "720h" or "Never")`);
  }
}

const UNIT: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 };
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/y;

export function parseDuration(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new DurationParseError(input);
    return input;
  }
  const s = input.trim();
  if (s === '0') return 0;
  let total = 0;
  let pos = 0;
  PART.lastIndex = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (!m) throw new DurationParseError(input);
    total += Number(m[1]) * UNIT[m[2]];
    pos = PART.lastIndex;
  }
  if (s.length === 0) throw new DurationParseError(input);
  return total;
}

/** Like parseDuration but accepts "Never" → null. */
export function parseDurationOrNever(input: string | number | null | undefined, fallback: number | null): number | null {
  if (input === undefined || input === null) return fallback;
  if (input === 'Never') return null;
  return parseDuration(input);
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return 'Never';
  if (seconds === 0) return '0s';
  const parts: string[] = [];
  let rest = seconds;
  for (const [u, n] of [
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const q = Math.floor(rest / n);
    if (q > 0) {
      parts.push(`${q}${u}`);
      rest -= q * n;
    }
  }
  if (rest > 0) parts.push(`${Math.round(rest * 1000)}ms`);
  return parts.join('');
}
