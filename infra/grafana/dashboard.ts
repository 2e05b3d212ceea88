/**
 * The Grafana dashboard over nodewright's Karpenter metrics (docs/metrics.md), typed with Grafana's own dashboard
 * model (@grafana/schema), so a field Grafana does not know or a wrong value fails the type check.
 * `node --import tsx infra/grafana/dashboard.ts` writes infra/grafana/nodewright-dashboard.json, the file users
 * import; a test keeps the two identical.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Dashboard, DataSourceRef, Panel, RowPanel } from '@grafana/schema';

const DS: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };
const RATE = '[$__rate_interval]';
const POOL = 'nodepool=~"$nodepool"';

type Query = [expr: string, legend: string];

class Layout {
  readonly panels: (Panel | RowPanel)[] = [];
  private x = 0;
  private y = 0;
  private rowHeight = 0;
  private id = 0;

  row(title: string): void {
    if (this.x > 0) this.y += this.rowHeight;
    this.x = 0;
    this.panels.push({ type: 'row', title, id: ++this.id, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y: this.y }, panels: [] });
    this.y += 1;
  }

  panel(title: string, type: 'timeseries' | 'stat', queries: Query[], opts: { unit?: string; w?: number; description?: string } = {}): void {
    const w = opts.w ?? 8;
    const h = 8;
    if (this.x + w > 24) {
      this.x = 0;
      this.y += this.rowHeight;
    }
    this.rowHeight = h;
    const options =
      type === 'stat'
        ? {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            colorMode: 'value',
            graphMode: 'area',
            textMode: 'auto',
            justifyMode: 'auto',
            orientation: 'auto',
          }
        : { legend: { displayMode: 'table', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } };
    this.panels.push({
      type,
      title,
      id: ++this.id,
      datasource: DS,
      gridPos: { h, w, x: this.x, y: this.y },
      ...(opts.description ? { description: opts.description } : {}),
      fieldConfig: { defaults: { unit: opts.unit ?? 'short' }, overrides: [] },
      options,
      targets: queries.map(([expr, legendFormat], i) => ({ refId: String.fromCharCode(65 + i), datasource: DS, expr, legendFormat })),
    });
    this.x += w;
  }
}

function panels(): (Panel | RowPanel)[] {
  const l = new Layout();
  l.row('Fleet');
  l.panel('Fleet cost', 'stat', [[`sum(karpenter_nodepools_cost_total{${POOL}})`, 'USD/h']], {
    unit: 'currencyUSD',
    w: 4,
    description: 'Hourly price of the launched NodeClaims (their on-demand or spot offering prices): karpenter_nodepools_cost_total.',
  });
  l.panel('Nodes', 'stat', [[`count(karpenter_nodes_allocatable{${POOL}, resource_type="cpu"})`, 'nodes']], { w: 4 });
  l.panel('Pending pods', 'stat', [['sum(karpenter_scheduler_queue_depth)', 'pending']], { w: 4 });
  l.panel('Cost by NodePool', 'timeseries', [[`sum by (nodepool)(karpenter_nodepools_cost_total{${POOL}})`, '{{nodepool}}']], { unit: 'currencyUSD', w: 12 });
  l.panel('Nodes by NodePool and capacity type', 'timeseries', [
    [`count by (nodepool, capacity_type)(karpenter_nodes_allocatable{${POOL}, resource_type="cpu"})`, '{{nodepool}} {{capacity_type}}'],
  ]);
  l.panel('CPU usage and limit (cores)', 'timeseries', [
    [`karpenter_nodepools_usage{${POOL}, resource_type="cpu"}`, '{{nodepool}} usage'],
    [`karpenter_nodepools_limit{${POOL}, resource_type="cpu"}`, '{{nodepool}} limit'],
  ]);
  const share = (r: string) =>
    `sum by (nodepool)(karpenter_nodes_total_pod_requests{${POOL}, resource_type="${r}"}) / sum by (nodepool)(karpenter_nodes_allocatable{${POOL}, resource_type="${r}"})`;
  l.panel(
    'Requested share of allocatable',
    'timeseries',
    [
      [share('cpu'), '{{nodepool}} cpu'],
      [share('memory'), '{{nodepool}} memory'],
    ],
    { unit: 'percentunit' },
  );

  l.row('Provisioning');
  l.panel('NodeClaims created', 'timeseries', [
    [`sum by (nodepool, reason)(increase(karpenter_nodeclaims_created_total{${POOL}}${RATE}))`, '{{nodepool}} {{reason}}'],
  ]);
  l.panel('NodeClaims terminated', 'timeseries', [
    [`sum by (nodepool, capacity_type)(increase(karpenter_nodeclaims_terminated_total{${POOL}}${RATE}))`, '{{nodepool}} {{capacity_type}}'],
  ]);
  l.panel('Pending and unschedulable pods', 'timeseries', [
    ['sum(karpenter_scheduler_queue_depth)', 'pending'],
    ['sum(karpenter_scheduler_unschedulable_pods_count)', 'unschedulable'],
  ]);
  const quantile = (q: number, metric: string) => `histogram_quantile(${q}, sum by (le)(rate(${metric}_bucket${RATE})))`;
  l.panel(
    'Scheduling duration',
    'timeseries',
    [
      [quantile(0.5, 'karpenter_scheduler_scheduling_duration_seconds'), 'p50'],
      [quantile(0.99, 'karpenter_scheduler_scheduling_duration_seconds'), 'p99'],
    ],
    { unit: 's', w: 12 },
  );
  l.panel(
    'Pod startup duration',
    'timeseries',
    [
      ['max(karpenter_pods_startup_duration_seconds{quantile="0.5"})', 'p50'],
      ['max(karpenter_pods_startup_duration_seconds{quantile="0.99"})', 'p99'],
    ],
    { unit: 's', w: 12 },
  );
  l.panel(
    'Nodes created and terminated',
    'timeseries',
    [
      [`sum by (nodepool)(increase(karpenter_nodes_created_total{${POOL}}${RATE}))`, '{{nodepool}} created'],
      [`sum by (nodepool)(increase(karpenter_nodes_terminated_total{${POOL}}${RATE}))`, '{{nodepool}} terminated'],
    ],
    { w: 12 },
  );

  l.row('Disruption');
  l.panel('Disruption decisions', 'timeseries', [
    [
      `sum by (decision, reason, consolidation_type)(increase(karpenter_voluntary_disruption_decisions_total${RATE}))`,
      '{{decision}} {{reason}} {{consolidation_type}}',
    ],
  ]);
  l.panel('Eligible nodes', 'timeseries', [['sum by (reason)(karpenter_voluntary_disruption_eligible_nodes)', '{{reason}}']]);
  l.panel('NodeClaims disrupted', 'timeseries', [
    [`sum by (nodepool, reason)(increase(karpenter_nodeclaims_disrupted_total{${POOL}}${RATE}))`, '{{nodepool}} {{reason}}'],
  ]);
  l.panel('Disruption evaluation duration', 'timeseries', [[quantile(0.99, 'karpenter_voluntary_disruption_decision_evaluation_duration_seconds'), 'p99']], {
    unit: 's',
    w: 12,
  });
  l.panel(
    'Node termination duration',
    'timeseries',
    [
      ['max by (nodepool)(karpenter_nodes_termination_duration_seconds{quantile="0.5"})', '{{nodepool}} p50'],
      ['max by (nodepool)(karpenter_nodes_termination_duration_seconds{quantile="0.99"})', '{{nodepool}} p99'],
    ],
    { unit: 's', w: 12 },
  );

  l.row('Interruption and errors');
  l.panel('Interruption messages', 'timeseries', [
    [`sum by (message_type)(increase(karpenter_interruption_received_messages_total${RATE}))`, '{{message_type}}'],
  ]);
  l.panel('Time on the interruption queue', 'timeseries', [[quantile(0.99, 'karpenter_interruption_message_queue_duration_seconds'), 'p99']], { unit: 's' });
  l.panel('Cloud provider errors', 'timeseries', [[`sum by (method, error)(increase(karpenter_cloudprovider_errors_total${RATE}))`, '{{method}} {{error}}']]);
  return l.panels;
}

export const dashboard: Dashboard = {
  title: 'nodewright — Karpenter metrics',
  uid: 'nodewright-karpenter',
  description:
    'Capacity, cost, provisioning, disruption and interruption from the Karpenter metrics nodewright publishes (docs/metrics.md). ' +
    'Point the datasource at a Prometheus scraping `nodewright sim serve` (/metrics), or any Prometheus holding these series.',
  tags: ['nodewright', 'karpenter'],
  timezone: 'browser',
  editable: true,
  graphTooltip: 1,
  schemaVersion: 39,
  version: 1,
  refresh: '10s',
  time: { from: 'now-30m', to: 'now' },
  fiscalYearStartMonth: 0,
  liveNow: false,
  annotations: { list: [] },
  links: [],
  templating: {
    list: [
      { name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus', hide: 0, refresh: 1, options: [], includeAll: false, multi: false },
      {
        name: 'nodepool',
        label: 'NodePool',
        type: 'query',
        datasource: DS,
        query: { query: 'label_values(karpenter_nodepools_usage, nodepool)', refId: 'nodepools' },
        includeAll: true,
        multi: true,
        allValue: '.*',
        refresh: 2,
        sort: 1,
        hide: 0,
        options: [],
      },
    ],
  },
  panels: panels(),
};

export const DASHBOARD_FILE = fileURLToPath(new URL('nodewright-dashboard.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DASHBOARD_FILE, `${JSON.stringify(dashboard, null, 2)}\n`);
  console.log(`wrote ${DASHBOARD_FILE}`);
}
