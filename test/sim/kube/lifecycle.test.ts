import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ChangeEvent } from '../../../shared/sim/kube';
import { failure, nodeJson, nodePoolJson, startHarness, statusOf, type Harness } from './fixtures';

const NP = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' };
const NC = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' };
const claim = (name: string, finalizers: string[] = []) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name, finalizers },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
  status: { nodeName: 'should-be-dropped' },
});

describe('fake API server: finalizers, patch kinds, custom resources and change events', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('should only mark an object with finalizers and delete it when the last finalizer goes', async () => {
    // Prepare
    await h.custom.createClusterCustomObject({ ...NC, body: claim('nc-1', ['karpenter.sh/termination']) });
    h.clock.now += 60_000;
    // Act
    await h.custom.deleteClusterCustomObject({ ...NC, name: 'nc-1' });
    const marked = (await h.custom.getClusterCustomObject({ ...NC, name: 'nc-1' })) as { metadata: { deletionTimestamp?: string } };
    await h.custom.patchClusterCustomObject(
      { ...NC, name: 'nc-1', body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const gone = statusOf(await failure(() => h.custom.getClusterCustomObject({ ...NC, name: 'nc-1' })));
    // Assess
    expect(marked.metadata.deletionTimestamp).toBe('2025-01-01T00:01:00Z');
    expect(gone.code).toBe(404);
  });

  it('should answer DELETE of an object with finalizers 200 with the marked object, as the API server does, for Nodes too', async () => {
    // Prepare
    await h.core.createNode({ body: { ...nodeJson('node-f'), metadata: { ...nodeJson('node-f').metadata, finalizers: ['karpenter.sh/termination'] } } });
    h.clock.now += 30_000;
    // Act
    const res = await fetch(`${h.server.url}/api/v1/nodes/node-f`, { method: 'DELETE', headers: { authorization: 'Bearer test-token' } });
    const body = (await res.json()) as { metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number; finalizers?: string[] } };
    const again = await fetch(`${h.server.url}/api/v1/nodes/node-f`, { method: 'DELETE', headers: { authorization: 'Bearer test-token' } });
    await h.core.patchNode({ name: 'node-f', body: { metadata: { finalizers: null } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const gone = statusOf(await failure(() => h.core.readNode({ name: 'node-f' })));
    // Assess
    expect(res.status).toBe(200);
    expect(body.metadata).toMatchObject({ deletionTimestamp: '2025-01-01T00:00:30Z', deletionGracePeriodSeconds: 0, finalizers: ['karpenter.sh/termination'] });
    expect(again.status).toBe(200);
    expect(gone.code).toBe(404);
  });

  it('should refuse new finalizers on an object being deleted', async () => {
    // Prepare
    await h.custom.createClusterCustomObject({ ...NC, body: claim('nc-2', ['a']) });
    await h.custom.deleteClusterCustomObject({ ...NC, name: 'nc-2' });
    // Act
    const err = statusOf(
      await failure(() =>
        h.custom.patchClusterCustomObject(
          { ...NC, name: 'nc-2', body: { metadata: { finalizers: ['a', 'b'] } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      ),
    );
    // Assess
    expect(err).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('should drop status on create for custom resources with a status subresource and accept it through /status', async () => {
    // Prepare
    await h.custom.createClusterCustomObject({ ...NC, body: claim('nc-3') });
    // Act
    const created = (await h.custom.getClusterCustomObject({ ...NC, name: 'nc-3' })) as { status?: { nodeName?: string } };
    await h.custom.patchClusterCustomObjectStatus(
      { ...NC, name: 'nc-3', body: { status: { nodeName: 'ip-10-0-0-1' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const patched = (await h.custom.getClusterCustomObject({ ...NC, name: 'nc-3' })) as { status?: { nodeName?: string } };
    // Assess
    expect(created.status).toBeUndefined();
    expect(patched.status?.nodeName).toBe('ip-10-0-0-1');
  });

  it('should apply merge patch (null removes), strategic merge as merge, and RFC 6902 JSON patch', async () => {
    // Prepare
    await h.core.createNode({ body: nodeJson('node-a', { labels: { keep: 'yes', drop: 'me' } }) });
    // Act
    await h.core.patchNode(
      { name: 'node-a', body: { metadata: { labels: { drop: null, added: 'x' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await h.core.patchNode(
      { name: 'node-a', body: { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    await h.core.patchNode({
      name: 'node-a',
      body: [
        { op: 'add', path: '/metadata/labels/json', value: 'patched' },
        { op: 'remove', path: '/metadata/labels/keep' },
      ],
    });
    const failedTest = statusOf(
      await failure(() => h.core.patchNode({ name: 'node-a', body: [{ op: 'test', path: '/metadata/labels/added', value: 'nope' }] })),
    );
    const node = await h.core.readNode({ name: 'node-a' });
    // Assess
    expect(node.metadata?.labels).toEqual({ 'kubernetes.io/hostname': 'node-a', added: 'x', json: 'patched' });
    expect(node.spec?.taints).toEqual([{ key: 'k', effect: 'NoSchedule' }]);
    expect(failedTest.code).toBe(422);
  });

  it('should serve cluster-scoped NodePools from the CRDs in infra/crds', async () => {
    // Prepare
    await h.custom.createClusterCustomObject({ ...NP, body: nodePoolJson('default') });
    // Act
    const list = (await h.custom.listClusterCustomObject(NP)) as { kind: string; items: { metadata: { name: string; namespace?: string } }[] };
    // Assess
    expect(list.kind).toBe('NodePoolList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['default']);
    expect(list.items[0].metadata.namespace).toBeUndefined();
  });

  it('should tell onChange subscribers about every write in order', async () => {
    // Prepare
    const seen: string[] = [];
    h.api.onChange((e: ChangeEvent) => seen.push(`${e.type} ${e.resource.resource}/${e.object.metadata.name}`));
    // Act
    await h.core.createNode({ body: nodeJson('node-a') });
    await h.core.patchNode({ name: 'node-a', body: { spec: { unschedulable: true } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await h.core.deleteNode({ name: 'node-a' });
    // Assess
    expect(seen).toEqual(['ADDED nodes/node-a', 'MODIFIED nodes/node-a', 'DELETED nodes/node-a']);
  });

  it('should give the same objects for the same clock and the same writes', async () => {
    // Prepare
    const other = await startHarness();
    // Act
    for (const x of [h, other]) {
      await x.core.createNode({ body: nodeJson('node-a') });
      await x.core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      });
    }
    const a = await h.core.listPodForAllNamespaces();
    const b = await other.core.listPodForAllNamespaces();
    await other.close();
    // Assess
    expect(JSON.stringify(a.items)).toBe(JSON.stringify(b.items));
    expect(a.items[0].metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
  });
});
