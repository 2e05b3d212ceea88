import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApisApi, CoreApi, PatchStrategy, setHeaderOptions, VersionApi } from '@kubernetes/client-node';
import { deploymentJson, failure, startHarness, statusOf, type Harness } from './fixtures';

describe('fake API server: discovery and the scale subresource', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('should serve /version, /api and /apis with the Karpenter groups', async () => {
    // Act
    const version = await h.kc.makeApiClient(VersionApi).getCode();
    const core = await h.kc.makeApiClient(CoreApi).getAPIVersions();
    const groups = await h.kc.makeApiClient(ApisApi).getAPIVersions();
    // Assess
    expect(version.major).toBe('1');
    expect(core.versions).toEqual(['v1']);
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(['apps', 'policy', 'storage.k8s.io', 'scheduling.k8s.io', 'karpenter.sh', 'karpenter.k8s.aws']),
    );
    // Every advertised group lists resources of its own (an empty one breaks `kubectl api-resources`): the
    // autoscaling/v1 Scale kind appears only on the scale subresources.
    expect(groups.groups.map((g) => g.name)).not.toContain('autoscaling');
  });

  it('should list resources per group version with scope and subresources', async () => {
    // Act
    const v1 = h.api.handle({ method: 'GET', path: '/api/v1', query: new URLSearchParams(), headers: { authorization: 'Bearer test-token' } }).body as {
      resources: { name: string; namespaced: boolean; kind: string }[];
    };
    const karpenter = h.api.handle({
      method: 'GET',
      path: '/apis/karpenter.sh/v1',
      query: new URLSearchParams(),
      headers: { authorization: 'Bearer test-token' },
    }).body as { resources: { name: string; namespaced: boolean; kind: string }[] };
    // Assess
    expect(v1.resources.find((r) => r.name === 'pods/eviction')).toMatchObject({ kind: 'Eviction', namespaced: true });
    expect(v1.resources.find((r) => r.name === 'nodes')).toMatchObject({ kind: 'Node', namespaced: false });
    expect(karpenter.resources.map((r) => r.name)).toEqual(['nodeclaims', 'nodeclaims/status', 'nodepools', 'nodepools/status', 'nodepools/scale']);
    expect(karpenter.resources.every((r) => r.namespaced === false)).toBe(true);
  });

  it('should read and write a Deployment through its scale subresource', async () => {
    // Prepare
    await h.apps.createNamespacedDeployment({ namespace: 'default', body: deploymentJson('inflate', 0) });
    // Act
    const before = await h.apps.readNamespacedDeploymentScale({ namespace: 'default', name: 'inflate' });
    await h.apps.patchNamespacedDeploymentScale(
      { namespace: 'default', name: 'inflate', body: { spec: { replicas: 5 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const after = await h.apps.readNamespacedDeployment({ namespace: 'default', name: 'inflate' });
    const negative = statusOf(
      await failure(() => h.apps.replaceNamespacedDeploymentScale({ namespace: 'default', name: 'inflate', body: { spec: { replicas: -1 } } })),
    );
    // Assess
    expect(before.spec?.replicas).toBe(0);
    expect(before.status?.selector).toBe('app=inflate');
    expect(after.spec?.replicas).toBe(5);
    expect(negative.code).toBe(422);
  });

  it('should learn a CustomResourceDefinition created through the API', async () => {
    // Prepare
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    // Act
    h.api.handle({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      query: new URLSearchParams(),
      headers: { authorization: 'Bearer test-token' },
      body: JSON.stringify(crd),
    });
    await h.custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      namespace: 'default',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
    });
    const w = (await h.custom.getNamespacedCustomObject({ group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'default', name: 'w' })) as {
      kind: string;
    };
    // Assess
    expect(w.kind).toBe('Widget');
  });
});
