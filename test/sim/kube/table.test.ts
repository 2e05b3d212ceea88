import { describe, expect, it } from 'vitest';
import { createFakeKubeApi } from '../../../shared/sim/kube';
import { evalJsonPath, humanDuration } from '../../../shared/sim/kube/table';
import { nodeJson, T0 } from './fixtures';

describe('Table output for kubectl get', () => {
  it('should print ages the way kubectl does', () => {
    // Prepare
    const cases: [number, string][] = [
      [5_000, '5s'],
      [150_000, '2m30s'],
      [3_600_000, '60m'],
      [5 * 3_600_000 + 60_000, '5h1m'],
      [30 * 3_600_000, '30h'],
      [50 * 3_600_000, '2d2h'],
      [400 * 86_400_000, '400d'],
    ];
    // Act
    const out = cases.map(([ms]) => humanDuration(ms));
    // Assess
    expect(out).toEqual(cases.map(([, s]) => s));
  });

  it('should evaluate printer-column JSONPath with escaped dots and condition filters', () => {
    // Prepare
    const o = {
      metadata: { labels: { 'node.kubernetes.io/instance-type': 'm5.large' } },
      status: {
        conditions: [
          { type: 'Launched', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
      },
    };
    // Act
    const type = evalJsonPath(o, '.metadata.labels.node\\.kubernetes\\.io/instance-type');
    const ready = evalJsonPath(o, '.status.conditions[?(@.type=="Ready")].status');
    const missing = evalJsonPath(o, '.status.nodeName');
    // Assess
    expect([type, ready, missing]).toEqual(['m5.large', 'False', undefined]);
  });

  it('should answer a Table with node columns and the virtual-clock age when asked for one', () => {
    // Prepare
    let now = T0;
    const api = createFakeKubeApi({ clock: () => now });
    api.apply(nodeJson('node-a'));
    now += 10 * 60_000;
    // Act
    const res = api.handle({
      method: 'GET',
      path: '/api/v1/nodes',
      query: new URLSearchParams(),
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    const table = res.body as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    // Assess
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name).slice(0, 4)).toEqual(['Name', 'Status', 'Roles', 'Age']);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['node-a', 'Ready', '<none>', '10m']);
  });

  it('should show the allowed disruptions of a budget as kubectl get pdb does', () => {
    // Prepare
    const api = createFakeKubeApi({ clock: () => T0 });
    api.apply({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    // Act
    const res = api.handle({
      method: 'GET',
      path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
      query: new URLSearchParams(),
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    const table = res.body as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    // Assess
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    expect(table.rows[0].cells).toEqual(['web', '1', 'N/A', 0, '0s']);
  });
});
