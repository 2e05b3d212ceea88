import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { failure, nodeJson, podJson, startHarness, statusOf, type Harness } from './fixtures';

describe('fake API server: REST semantics through @kubernetes/client-node', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('should stamp uid, resourceVersion, generation and creationTimestamp from the injected clock', async () => {
    // Prepare
    h.clock.now = Date.UTC(2030, 5, 1, 12, 0, 0);
    // Act
    await h.core.createNamespacedPod({ namespace: 'default', body: podJson('web-1') });
    const pod = await h.core.readNamespacedPod({ namespace: 'default', name: 'web-1' });
    // Assess
    expect(pod.metadata?.creationTimestamp?.toISOString()).toBe('2030-06-01T12:00:00.000Z');
    expect(pod.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(pod.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(pod.metadata?.generation).toBe(1);
    expect(pod.status?.phase).toBe('Pending');
  });

  it('should answer 404 NotFound, 409 AlreadyExists and 422 Invalid with Status bodies', async () => {
    // Prepare
    await h.core.createNode({ body: nodeJson('node-a') });
    // Act
    const missing = statusOf(await failure(() => h.core.readNode({ name: 'nope' })));
    const dup = statusOf(await failure(() => h.core.createNode({ body: nodeJson('node-a') })));
    const bad = statusOf(await failure(() => h.core.createNode({ body: nodeJson('Bad_Name') })));
    // Assess
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', message: 'nodes "nope" not found' });
    expect(dup).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect(bad).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('should refuse requests without the bearer token with 401', async () => {
    // Prepare
    const { kubeConfigForServer } = await import('../../../shared/adapters/kubernetes/config');
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const anon = kubeConfigForServer({ server: h.server.url }).makeApiClient(CoreV1Api);
    // Act
    const err = statusOf(await failure(() => anon.listNode()));
    // Assess
    expect(err.code).toBe(401);
  });

  it('should filter lists by label selector and by field selectors on spec.nodeName and status.phase', async () => {
    // Prepare
    await h.core.createNamespacedPod({ namespace: 'default', body: podJson('a', { labels: { app: 'web', tier: 'front' }, nodeName: 'n1' }) });
    await h.core.createNamespacedPod({ namespace: 'default', body: podJson('b', { labels: { app: 'web' } }) });
    await h.core.createNamespacedPod({
      namespace: 'other',
      body: podJson('c', { namespace: 'other', labels: { app: 'db' }, nodeName: 'n1', phase: 'Succeeded' }),
    });
    const names = (l: { items: { metadata?: { name?: string } }[] }) => l.items.map((p) => p.metadata?.name);
    // Act
    const web = await h.core.listPodForAllNamespaces({ labelSelector: 'app in (web),!canary' });
    const front = await h.core.listPodForAllNamespaces({ labelSelector: 'app=web,tier=front' });
    const pending = await h.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=,status.phase=Pending' });
    const onNode = await h.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1,status.phase!=Succeeded' });
    const byName = await h.core.listNamespacedPod({ namespace: 'other', fieldSelector: 'metadata.name=c' });
    // Assess
    expect(names(web)).toEqual(['a', 'b']);
    expect(names(front)).toEqual(['a']);
    expect(names(pending)).toEqual(['b']);
    expect(names(onNode)).toEqual(['a']);
    expect(names(byName)).toEqual(['c']);
  });

  it('should page lists with limit and continue', async () => {
    // Prepare
    for (const n of ['n1', 'n2', 'n3', 'n4', 'n5']) await h.core.createNode({ body: nodeJson(n) });
    // Act
    const first = await h.core.listNode({ limit: 2 });
    const second = await h.core.listNode({ limit: 2, _continue: first.metadata?._continue });
    const third = await h.core.listNode({ limit: 2, _continue: second.metadata?._continue });
    // Assess
    expect(first.items.map((n) => n.metadata?.name)).toEqual(['n1', 'n2']);
    expect(first.metadata?.remainingItemCount).toBe(3);
    expect(second.items.map((n) => n.metadata?.name)).toEqual(['n3', 'n4']);
    expect(third.items.map((n) => n.metadata?.name)).toEqual(['n5']);
    expect(third.metadata?._continue).toBeUndefined();
  });

  it('should page a namespace and a selector from where the token left off, with no count of what matches later', async () => {
    // Prepare: pods in two namespaces, every other one labelled; one created between the pages
    for (const ns of ['aa', 'zz']) {
      for (let i = 0; i < 6; i++)
        await h.core.createNamespacedPod({ namespace: ns, body: podJson(`p${i}`, { namespace: ns, labels: { even: String(i % 2 === 0) } }) });
    }
    const all = async (query: { namespace?: string; labelSelector?: string }, created?: () => Promise<unknown>) => {
      const pages: string[][] = [];
      let token: string | undefined;
      do {
        const page = query.namespace
          ? await h.core.listNamespacedPod({ namespace: query.namespace, labelSelector: query.labelSelector, limit: 2, _continue: token })
          : await h.core.listPodForAllNamespaces({ labelSelector: query.labelSelector, limit: 2, _continue: token });
        pages.push(page.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
        if (query.labelSelector && page.metadata?._continue) expect(page.metadata.remainingItemCount).toBeUndefined();
        token = page.metadata?._continue;
        if (pages.length === 1) await created?.();
      } while (token);
      return pages;
    };
    // Act
    const inZz = await all({ namespace: 'zz' }, () => h.core.createNamespacedPod({ namespace: 'zz', body: podJson('p9', { namespace: 'zz' }) }));
    const evenEverywhere = await all({ labelSelector: 'even=true' });
    const oddInAa = await all({ namespace: 'aa', labelSelector: 'even=false' });
    // Assess: a page resumes after the token's key (the pod created behind the token comes last), and the last page has no token
    expect(inZz).toEqual([['zz/p0', 'zz/p1'], ['zz/p2', 'zz/p3'], ['zz/p4', 'zz/p5'], ['zz/p9']]);
    expect(evenEverywhere).toEqual([
      ['aa/p0', 'aa/p2'],
      ['aa/p4', 'zz/p0'],
      ['zz/p2', 'zz/p4'],
    ]);
    expect(oddInAa).toEqual([['aa/p1', 'aa/p3'], ['aa/p5']]);
  });

  it('should reject an update carrying a stale resourceVersion with 409 Conflict and bump generation on spec changes', async () => {
    // Prepare
    const created = await h.core.createNode({ body: nodeJson('node-a') });
    created.spec = { ...created.spec, unschedulable: true };
    const updated = await h.core.replaceNode({ name: 'node-a', body: created });
    // Act
    const stale = statusOf(await failure(() => h.core.replaceNode({ name: 'node-a', body: created })));
    // Assess
    expect(updated.metadata?.generation).toBe(2);
    expect(updated.spec?.unschedulable).toBe(true);
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('should keep status out of main-resource writes and spec out of status writes', async () => {
    // Prepare
    await h.core.createNode({ body: nodeJson('node-a') });
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    // Act
    await h.core.patchNode({ name: 'node-a', body: { status: { phase: 'ignored' }, metadata: { labels: { a: 'b' } } } }, mergePatch);
    await h.core.patchNodeStatus(
      { name: 'node-a', body: { status: { conditions: [{ type: 'Ready', status: 'False' }] }, spec: { unschedulable: true } } },
      mergePatch,
    );
    const node = await h.core.readNode({ name: 'node-a' });
    // Assess
    expect(node.metadata?.labels?.a).toBe('b');
    expect((node.status as { phase?: string }).phase).toBeUndefined();
    expect(node.status?.conditions?.[0].status).toBe('False');
    expect(node.spec?.unschedulable).toBeUndefined();
  });
});
