/**
 * infra/grafana/nodewright-dashboard.json: the Grafana dashboard users import. It is written from
 * infra/grafana/dashboard.ts, typed with Grafana's own dashboard model (@grafana/schema: the type check is the
 * schema check), and every query must ask for metrics nodewright publishes with labels those metrics carry — a
 * panel over a misspelled metric or label would stay empty.
 */
import { readFileSync } from 'node:fs';
import type { Panel, RowPanel } from '@grafana/schema';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_FILE, dashboard } from '../../infra/grafana/dashboard';
import { METRICS, type MetricName } from '../../shared/core/metrics/catalog';

const panels = (dashboard.panels ?? []) as (Panel | RowPanel)[];
const queries = panels.flatMap((p) =>
  ('targets' in p ? (p.targets ?? []) : []).map((t) => ({ panel: p.title ?? '', expr: String((t as { expr?: string }).expr ?? '') })),
);

/** The catalog metric an exposition series name belongs to (histogram and summary series carry suffixes). */
function metricOf(series: string): MetricName | undefined {
  for (const suffix of ['', '_bucket', '_sum', '_count']) {
    if (suffix && !series.endsWith(suffix)) continue;
    const base = series.slice(0, series.length - suffix.length);
    if (base in METRICS) return base as MetricName;
  }
  return undefined;
}

describe('the Grafana dashboard', () => {
  it('should be a dashboard Grafana can import: a uid, a title, panels laid out on the 24-column grid with unique ids', () => {
    expect(dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(dashboard.title).toBeTruthy();
    // The shipped JSON is the typed source's output (regenerate: node --import tsx infra/grafana/dashboard.ts).
    expect(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8'))).toEqual(JSON.parse(JSON.stringify(dashboard)));
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.gridPos, p.title).toBeDefined();
      expect(p.gridPos!.x + p.gridPos!.w, p.title).toBeLessThanOrEqual(24);
    }
    expect(queries.length).toBeGreaterThanOrEqual(15);
  });

  it('should query only metrics nodewright publishes, and only the labels those metrics carry', () => {
    for (const { panel, expr } of queries) {
      const series = [...expr.matchAll(/\b(karpenter_[a-z_]+)/g)].map((m) => m[1]);
      expect(series.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      const metrics = series.map((s) => {
        const m = metricOf(s);
        expect(m, `${panel}: ${s} is not in shared/core/metrics/catalog.ts`).toBeDefined();
        return m!;
      });
      const known = new Set(['le', 'quantile', ...metrics.flatMap((m) => METRICS[m].labels)]);
      const used = [
        ...[...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1].matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1])),
        ...[...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((l) => l.trim())),
      ];
      for (const label of used) expect(known.has(label), `${panel}: label ${label} in ${expr}`).toBe(true);
    }
  });

  it('should offer a NodePool variable from the metrics and a Prometheus datasource variable', () => {
    const names = (dashboard.templating?.list ?? []).map((v) => v.name);
    expect(names).toEqual(expect.arrayContaining(['datasource', 'nodepool']));
  });
});
