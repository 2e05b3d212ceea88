import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeClusterWatch } from '../../../shared/adapters/kubernetes/watch';
import type { WatchClosed, WatchedKind, WatchEvent, WatchHandle } from '../../../shared/core/ports';
import { nodeJson, podJson, startHarness, type Harness } from '../../sim/kube/fixtures';

/** What one stream delivered, in a compact form: `ADDED a`, `SYNCED 12`, `BOOKMARK nodes 14`. */
function describeEvent(e: WatchEvent): string {
  if (e.type === 'BOOKMARK' || e.type === 'SYNCED') return `${e.type} ${e.kind} ${e.resourceVersion}`;
  return `${e.type} ${e.object.name}`;
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('KubeClusterWatch', () => {
  let h: Harness;
  let handle: WatchHandle | undefined;
  /** The fake API server's timers (bookmarks), fired by the test. */
  let timers: (() => void)[];
  beforeEach(async () => {
    h = await startHarness();
    timers = [];
    h.api.holdTimer = (_ms, fn) => {
      timers.push(fn);
      return () => (timers = timers.filter((t) => t !== fn));
    };
  });
  afterEach(async () => {
    handle?.stop();
    await h.close();
  });

  async function open(kind: WatchedKind, resourceVersion?: string, opts: ConstructorParameters<typeof KubeClusterWatch>[1] = {}) {
    const events: string[] = [];
    const closes: WatchClosed[] = [];
    handle = await new KubeClusterWatch(h.kc, opts).watch(
      kind,
      resourceVersion,
      (e) => events.push(describeEvent(e)),
      (why) => closes.push(why),
    );
    return { events, closes };
  }

  it('should list only the unbound pods, start the bound pods at the current state unlisted, and move a pod that binds from one to the other', async () => {
    // Prepare
    h.api.apply(podJson('waiting', { phase: 'Pending' }));
    h.api.apply(podJson('running', { nodeName: 'n1' }));
    const listedAt = h.api.store.resourceVersion();
    const bound: string[] = [];
    const other = await new KubeClusterWatch(h.kc).watch(
      'boundpods',
      undefined,
      (e) => bound.push(describeEvent(e)),
      () => undefined,
    );
    // Act
    const unbound = await open('pods');
    await until(() => unbound.events.length === 2 && bound.length === 1);
    h.api.apply(podJson('waiting', { phase: 'Pending', nodeName: 'n1' }));
    await until(() => unbound.events.length === 3 && bound.length === 2);
    other.stop();
    // Assess
    expect(unbound.events).toEqual(['ADDED waiting', `SYNCED pods ${listedAt}`, 'DELETED waiting']);
    expect(bound).toEqual([`SYNCED boundpods ${listedAt}`, 'ADDED waiting']);
  });

  it('should list the current state, say when the listing is complete, then stream changes from there', async () => {
    // Prepare
    h.api.apply(nodeJson('a'));
    h.api.apply(nodeJson('b'));
    const listedAt = h.api.store.resourceVersion();
    // Act
    const s = await open('nodes');
    await until(() => s.events.length === 3);
    h.api.apply(nodeJson('c'));
    h.api.remove('v1', 'Node', 'a');
    await until(() => s.events.length === 5);
    // Assess
    expect(s.events).toEqual(['ADDED a', 'ADDED b', `SYNCED nodes ${listedAt}`, 'ADDED c', 'DELETED a']);
  });

  it("should pass on the API server's bookmarks with their stream's kind, at the server's newest resourceVersion", async () => {
    // Prepare
    h.api.apply(nodeJson('a'));
    const s = await open('nodes');
    await until(() => s.events.length === 2 && timers.length === 1);
    // Act: a pod is written (no event on the nodes stream), then a minute passes
    h.api.apply(podJson('p'));
    timers[0]();
    await until(() => s.events.length === 3);
    // Assess
    expect(s.events[2]).toBe(`BOOKMARK nodes ${h.api.store.resourceVersion()}`);
  });

  it('should report 410 Gone when it resumes from before a compaction', async () => {
    // Prepare
    h.api.apply(nodeJson('a'));
    const old = h.api.store.resourceVersion();
    h.api.apply(nodeJson('b'));
    h.api.compactWatchHistory();
    // Act
    const s = await open('nodes', old);
    await until(() => s.closes.length === 1);
    // Assess
    expect(s.closes[0]).toMatchObject({ gone: true });
  });

  it('should give up a watch request the server never answers and close its connection', async () => {
    // Prepare: every request is held without an answer
    h.api.faultHook = () => ({ delayMs: Infinity });
    const servers = (h.api as unknown as { servers: Set<Server> }).servers;
    const connections = () => new Promise<number>((resolve) => [...servers][0].getConnections((_e, n) => resolve(n)));
    // Act: the connect timeout (20 s) passes at once here
    const s = await open('nodes', h.api.store.resourceVersion(), { sleep: () => new Promise((r) => setTimeout(r, 20)) });
    await until(() => s.closes.length === 1);
    let open_ = await connections();
    for (let i = 0; i < 100 && open_ > 0; i++) open_ = await new Promise((r) => setTimeout(r, 5)).then(connections);
    // Assess
    expect(s.closes[0]).toMatchObject({ gone: false, error: expect.stringContaining('no answer within 20 s') });
    expect(open_).toBe(0);
  });
});
