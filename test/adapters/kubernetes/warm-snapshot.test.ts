/**
 * The snapshot a container keeps warm: a large kind is listed once, then caught up with a short WATCH from where the
 * copy stands — and every caught-up read equals what a fresh LIST would give.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeClusterClient } from '../../../shared/adapters/kubernetes';
import { CATCH_UP_FROM } from '../../../shared/adapters/kubernetes/warm-snapshot';
import type { ClusterSnapshot } from '../../../shared/core/ports/cluster-client';
import { nodeJson, podJson, startHarness, type Harness } from '../../sim/kube/fixtures';
import { epochMs } from '../../../shared/core/time';

const PODS = CATCH_UP_FROM + 50;

/** What a user of the snapshot sees of pods and nodes: order, node, priority. */
const view = (s: ClusterSnapshot) => ({
  pods: s.pods.map((p) => `${p.namespace}/${p.name}@${p.nodeName ?? ''}:${p.priority ?? 0}`),
  nodes: s.nodes.map((n) => n.name),
});

describe('the warm snapshot', () => {
  let h: Harness;
  const t = () => h.api.store;
  const podType = () => t().typeOf('v1', 'Pod');
  const fresh = () => new KubeClusterClient(h.kc, { pageSize: 500, now: () => epochMs(h.clock.now) });

  beforeEach(async () => {
    h = await startHarness();
    // The catch-up's one-second watch ends on a short timer here (virtual time in the simulator).
    h.api.holdTimer = (_ms, fn) => {
      const timer = setTimeout(fn, 20);
      return () => clearTimeout(timer);
    };
    t().create(t().typeOf('v1', 'Node'), undefined, nodeJson('node-a'));
    for (let i = 0; i < PODS; i++)
      t().create(podType(), 'default', podJson(`p${String(i).padStart(5, '0')}`, i === 10 ? { unschedulable: true } : { nodeName: 'node-a' }));
  });
  afterEach(async () => {
    await h.close();
  });

  it('should catch up a large kind from its last read instead of listing it again, and read what a fresh LIST reads', async () => {
    // Prepare
    const client = fresh();
    await client.snapshot();
    const bound = t().get(podType(), 'default', 'p00010');
    t().update(podType(), 'default', 'p00010', { ...bound, spec: { ...bound.spec, nodeName: 'node-b' } });
    t().delete(podType(), 'default', 'p00011');
    t().create(podType(), 'default', podJson('a-new', { unschedulable: true }));
    const done = t().get(podType(), 'default', 'p00012');
    t().update(podType(), 'default', 'p00012', { ...done, status: { ...(done.status as object), phase: 'Succeeded' } }, { subresource: 'status' });
    const listed = vi.spyOn(t(), 'list');

    // Act
    const caughtUp = await client.snapshot();

    // Assess
    expect(listed.mock.calls.filter(([rt]) => rt.resource === 'pods')).toEqual([]);
    expect(view(caughtUp)).toEqual(view(await fresh().snapshot()));
    expect(caughtUp.pods[0].name).toBe('a-new');
    expect(caughtUp.pods.find((p) => p.name === 'p00010')?.nodeName).toBe('node-b');
    expect(caughtUp.pods.some((p) => p.name === 'p00011' || p.name === 'p00012')).toBe(false);
  });

  it('should list again when the API server no longer keeps the history since the last read (410 Gone)', async () => {
    // Prepare
    const client = fresh();
    await client.snapshot();
    t().delete(podType(), 'default', 'p00001');
    h.api.compactWatchHistory();

    // Act
    const snap = await client.snapshot();

    // Assess
    expect(snap.pods).toHaveLength(PODS - 1);
    expect(view(snap)).toEqual(view(await fresh().snapshot()));
  });

  it('should map the pods again when a PriorityClass changes their priority', async () => {
    // Prepare
    const client = fresh();
    await client.snapshot();
    t().create(t().typeOf('scheduling.k8s.io/v1', 'PriorityClass'), undefined, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'everyone' },
      value: 1000,
      globalDefault: true,
    });

    // Act
    const snap = await client.snapshot();

    // Assess
    expect(new Set(snap.pods.map((p) => p.priority))).toEqual(new Set([1000]));
  });
});
