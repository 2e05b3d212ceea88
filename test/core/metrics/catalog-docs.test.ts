/** docs/metrics.md lists every metric nodewright publishes, with its type and labels, as the catalog defines them. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../../shared/core/metrics/catalog';

const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
const rows = new Map(
  doc
    .split('\n')
    .filter((l) => l.startsWith('| `karpenter_'))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return [cells[1].replace(/`/g, ''), { type: cells[2], labels: [...cells[3].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]) }];
    }),
);

describe('docs/metrics.md', () => {
  it('should list every published metric with its type and labels, and nothing else', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(METRICS).sort());
    for (const [name, spec] of Object.entries(METRICS)) {
      expect(rows.get(name), name).toEqual({ type: spec.type, labels: [...spec.labels] });
    }
  });

  it("should use Karpenter's naming: the karpenter_ prefix, _total counters, _seconds durations (histograms of other units have their own buckets)", () => {
    for (const [name, spec] of Object.entries(METRICS)) {
      expect(name).toMatch(/^karpenter_[a-z_]+$/);
      if (spec.type === 'counter') expect(name).toMatch(/_total$/);
      // Durations are _seconds; a histogram with its own buckets measures something else (Balanced's score).
      if ((spec.type === 'histogram' || spec.type === 'summary') && !('buckets' in spec)) expect(name).toMatch(/_seconds$/);
    }
  });
});
