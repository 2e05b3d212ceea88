import { describe, expect, it } from 'vitest';
import { createFakeKubeApi, type KubeObject } from '../../../shared/sim/kube';
import { T0 } from './fixtures';

type Entry = {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
};

function setup() {
  const clock = { now: T0 };
  const api = createFakeKubeApi({ clock: () => clock.now });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, query = '') =>
    api.handle({
      method,
      path,
      query: new URLSearchParams(query),
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { api, clock, call };
}

const entries = (o: unknown): Entry[] => ((o as KubeObject).metadata.managedFields ?? []) as Entry[];
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: '1' }] }] },
};

describe('fake API server: managedFields', () => {
  it('should record the creator from the User-Agent with every field it set, in FieldsV1', () => {
    // Prepare
    const { call } = setup();
    // Act
    const r = call('POST', '/api/v1/namespaces/default/pods', POD, { 'user-agent': 'kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/abc' });
    // Assess
    expect(r.status).toBe(201);
    expect(entries(r.body)).toEqual([
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"app"}': { '.': {}, 'f:name': {}, 'f:image': {}, 'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('should give a later writer the fields it changed, a status writer its own entry, and honour ?fieldManager=', () => {
    // Prepare
    const { call, clock } = setup();
    call('POST', '/api/v1/namespaces/default/pods', POD, { 'user-agent': 'kube-controller-manager/v1.31.0' });
    clock.now += 60_000;
    // Act
    const patched = call(
      'PATCH',
      '/api/v1/namespaces/default/pods/web',
      { metadata: { labels: { app: 'web2', extra: 'x' } } },
      {
        'content-type': 'application/merge-patch+json',
        'user-agent': 'kubectl/v1.31.0',
      },
      'fieldManager=kubectl-label',
    );
    const status = call(
      'PATCH',
      '/api/v1/namespaces/default/pods/web/status',
      { status: { phase: 'Running', podIP: '10.0.0.1' } },
      {
        'content-type': 'application/merge-patch+json',
        'user-agent': 'kubelet/v1.31.0',
      },
    );
    // Assess
    expect(patched.status).toBe(200);
    const byManager = Object.fromEntries(entries(status.body).map((e) => [e.manager, e]));
    // The creator keeps the labels map itself ('.'); the label it set and another changed is no longer its own.
    expect(byManager['kube-controller-manager'].fieldsV1['f:metadata']).toEqual({ 'f:labels': { '.': {} } });
    expect(byManager['kube-controller-manager'].time).toBe('2025-01-01T00:00:00Z');
    expect(byManager['kubectl-label'].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:app': {}, 'f:extra': {} } } });
    expect(byManager['kubectl-label'].time).toBe('2025-01-01T00:01:00Z');
    expect(byManager.kubelet).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {} } } });
  });

  it('should strip managedFields on [{}], keep them on [], and refuse a fieldManager that is too long', () => {
    // Prepare
    const { call } = setup();
    call('POST', '/api/v1/namespaces/default/pods', POD, { 'user-agent': 'kube-controller-manager/v1.31.0' });
    const merge = { 'content-type': 'application/merge-patch+json', 'user-agent': 'test' };
    // Act
    const kept = call('PATCH', '/api/v1/namespaces/default/pods/web', { metadata: { managedFields: [] } }, merge);
    const stripped = call('PATCH', '/api/v1/namespaces/default/pods/web', { metadata: { managedFields: [{}] } }, merge);
    const tooLong = call('PATCH', '/api/v1/namespaces/default/pods/web', { metadata: { labels: { a: 'b' } } }, merge, `fieldManager=${'x'.repeat(129)}`);
    // Assess
    expect(entries(kept.body).map((e) => e.manager)).toEqual(['kube-controller-manager']);
    expect(entries(stripped.body)).toEqual([]);
    expect(tooLong.status).toBe(422);
  });

  it('should serve server-side apply: create when missing, operation Apply owning what was applied', () => {
    // Prepare
    const { call } = setup();
    const apply = { 'content-type': 'application/apply-patch+yaml', 'user-agent': 'kubectl/v1.31.0' };
    const pc = 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 1000\ndescription: "1"\n';
    // Act
    const created = call('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/high', pc, apply, 'fieldManager=kubectl');
    const again = call('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/high', pc.replace('"1"', '"2"'), apply, 'fieldManager=kubectl');
    const noManager = call('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/high', pc, apply);
    // Assess
    expect(created.status).toBe(201);
    expect(again.status).toBe(200);
    expect((again.body as KubeObject).description).toBe('2');
    expect(entries(again.body)).toEqual([
      expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:value': {}, 'f:description': {} } }),
    ]);
    expect(noManager.status).toBe(400);
  });
});
