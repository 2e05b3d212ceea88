import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentJson, failure, pdbJson, podJson, startHarness, statusOf, type Harness } from './fixtures';

const eviction = (namespace: string, name: string) => ({ name, namespace, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } } });

describe('fake API server: eviction honouring PodDisruptionBudgets, and binding', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
    await h.apps.createNamespacedDeployment({ namespace: 'default', body: deploymentJson('web', 3) });
    for (const n of ['web-1', 'web-2', 'web-3'])
      await h.core.createNamespacedPod({
        namespace: 'default',
        body: podJson(n, { labels: { app: 'web' }, nodeName: 'node-a', ready: true, owner: { kind: 'Deployment', name: 'web' } }),
      });
  });
  afterEach(async () => {
    await h.close();
  });

  it('should compute disruptionsAllowed in the PDB status from the ready pods it selects', async () => {
    // Prepare
    await h.policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: pdbJson('web', { app: 'web' }, { minAvailable: 2 }) });
    // Act
    const pdb = await h.policy.readNamespacedPodDisruptionBudget({ namespace: 'default', name: 'web' });
    // Assess
    expect(pdb.status).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3 });
  });

  it('should evict while the budget allows and answer 429 TooManyRequests once it is used up', async () => {
    // Prepare
    await h.policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: pdbJson('web', { app: 'web' }, { maxUnavailable: '33%' }) });
    // Act
    await h.core.createNamespacedPodEviction(eviction('default', 'web-1'));
    const blocked = statusOf(await failure(() => h.core.createNamespacedPodEviction(eviction('default', 'web-2'))));
    const remaining = await h.core.listNamespacedPod({ namespace: 'default' });
    // Assess
    expect(blocked).toMatchObject({ code: 429, reason: 'TooManyRequests' });
    expect(remaining.items.map((p) => p.metadata?.name)).toEqual(['web-2', 'web-3']);
  });

  it('should answer 404 when the pod to evict is already gone', async () => {
    // Act
    const err = statusOf(await failure(() => h.core.createNamespacedPodEviction(eviction('default', 'nope'))));
    // Assess
    expect(err.code).toBe(404);
  });

  it('should evict pods no budget selects', async () => {
    // Prepare
    await h.policy.createNamespacedPodDisruptionBudget({ namespace: 'default', body: pdbJson('db', { app: 'db' }, { minAvailable: '100%' }) });
    // Act
    await h.core.createNamespacedPodEviction(eviction('default', 'web-3'));
    // Assess
    expect(statusOf(await failure(() => h.core.readNamespacedPod({ namespace: 'default', name: 'web-3' }))).code).toBe(404);
  });

  it('should bind a pending pod to a node and set PodScheduled, refusing a second binding with 409', async () => {
    // Prepare
    await h.core.createNamespacedPod({ namespace: 'default', body: podJson('pending', { unschedulable: true }) });
    const binding = {
      name: 'pending',
      namespace: 'default',
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'pending' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-b' } },
    };
    // Act
    await h.core.createNamespacedBinding(binding).catch(() => h.core.createNamespacedPodBinding(binding));
    const pod = await h.core.readNamespacedPod({ namespace: 'default', name: 'pending' });
    const again = statusOf(await failure(() => h.core.createNamespacedPodBinding(binding)));
    // Assess
    expect(pod.spec?.nodeName).toBe('node-b');
    expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    expect(again.code).toBe(409);
  });
});

describe('fake API server: graceful pod deletion (opt-in)', () => {
  it('should mark a bound pod as terminating and remove it only on a zero-grace delete', async () => {
    // Prepare
    const { createFakeKubeApi } = await import('../../../shared/sim/kube');
    const api = createFakeKubeApi({ gracefulPodDeletion: true });
    const pods = api.store.typeOf('v1', 'Pod');
    api.apply(podJson('web-1', { nodeName: 'node-a', ready: true }));
    // Act
    const first = api.store.delete(pods, 'default', 'web-1');
    const terminating = api.store.get(pods, 'default', 'web-1');
    const forced = api.store.delete(pods, 'default', 'web-1', { gracePeriodSeconds: 0 });
    // Assess
    expect(first.gone).toBe(false);
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(forced.gone).toBe(true);
  });
});
