import { describe, expect, it } from 'vitest';
import { runScheduler } from '../../../shared/sim/cluster';
import { FakeKubeApi, type KubeObject } from '../../../shared/sim/kube';
import { KubeApiStatusError } from '../../../shared/sim/kube/status';

function setup() {
  const api = new FakeKubeApi({ clock: () => Date.UTC(2025, 0, 1) });
  const podType = api.store.typeOf('v1', 'Pod');
  api.store.create(api.store.typeOf('v1', 'Node'), undefined, {
    metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
    status: {
      allocatable: { cpu: '2000', memory: '64Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  });
  const pod = (name: string, requests: Record<string, unknown>): KubeObject => ({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'pause', resources: { requests } }] },
  });
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof KubeApiStatusError ? e.code : -1;
    }
    return 0;
  };
  return { api, podType, pod, refusal };
}

describe('simulator: resource quantities as the API server takes them', () => {
  it('should schedule pods whose quantities the API server accepts in any of its forms', () => {
    // Prepare
    const { api, podType, pod } = setup();
    const forms: Record<string, unknown>[] = [
      { cpu: '1e3', memory: '0.5Gi' },
      { cpu: '100m', memory: '1.5' },
      { cpu: '+1' },
      { cpu: 2, memory: '1E3' },
      { cpu: '.5', memory: '1.' },
    ];
    forms.forEach((requests, i) => api.store.create(podType, 'default', pod(`p${i}`, requests)));
    // Act
    const r = runScheduler(api.store);
    // Assess
    expect(r.bound.map((b) => b.pod).sort()).toEqual(['default/p0', 'default/p1', 'default/p2', 'default/p3', 'default/p4']);
  });

  it('should refuse an unparseable quantity with 400 and a negative request with 422, in pods and in pod templates', () => {
    // Prepare
    const { api, podType, pod, refusal } = setup();
    const deployment = api.store.typeOf('apps/v1', 'Deployment');
    const template = (cpu: string) => ({
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: pod('x', { cpu }).spec } },
    });
    // Act
    const codes = [
      refusal(() => api.store.create(podType, 'default', pod('bad', { cpu: 'one' }))),
      refusal(() => api.store.create(podType, 'default', pod('neg', { memory: '-1Gi' }))),
      refusal(() => api.store.create(deployment, 'default', template('1 cpu'))),
      refusal(() => api.store.create(deployment, 'default', template('500m'))),
    ];
    // Assess
    expect(codes).toEqual([400, 422, 400, 0]);
    expect(() => runScheduler(api.store)).not.toThrow();
  });
});
