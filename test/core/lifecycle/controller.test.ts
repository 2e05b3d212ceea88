import type { NodeClaim } from '../../../shared/core/model/karpenter';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_LEASE } from '../../../shared/core/lifecycle';
import { node, nodeClaim, nodePool, pod } from '../../fakes/lifecycle';
import { T0, added, pending, provisionerCalls, run, world } from './controller-fixtures';
import { epochMs, type EpochMs } from '../../../shared/core/time';

const staticPoolOf = (replicas: number) => nodePool('static', { replicas });

describe('runController', () => {
  it('should start a provisioner round 1 s after a pod appears at an odd second, batched', async () => {
    // Prepare
    const w = world();
    // Act
    await run(w, 60, [[12.4, () => w.watch.emit('pods', added(pending('a')))]]);
    // Assess
    // The call must end 30 s after the controller's planned hand-over (it waits for its calls before it hands over).
    expect(provisionerCalls(w)[0]).toEqual({
      fn: 'provisioner',
      at: 13.4,
      payload: expect.objectContaining({ reconcile: true, batched: true, deadlineMs: T0 + 90_000 }),
    });
    // Still pending (nothing bound it here): retried with backoff, not every second.
    expect(provisionerCalls(w).map((c) => c.at)).toEqual([13.4, 23.4, 43.4]);
  });

  it('should plan the pods again 1 s after a round that left claims to the next one, not at the retry back-off', async () => {
    // Prepare: the first round reaches its deadline with claims left over
    const w = world();
    let rounds = 0;
    const invoke = w.invoker.invoke.bind(w.invoker);
    w.invoker.invoke = async (fn, payload) => {
      await invoke(fn, payload);
      return fn === 'provisioner' && ++rounds === 1 ? { deferred: 3 } : {};
    };
    // Act
    await run(w, 40, [[12.4, () => w.watch.emit('pods', added(pending('a')))]]);
    // Assess
    expect(provisionerCalls(w).map((c) => c.at)).toEqual([13.4, 14.4, 24.4]);
  });

  it('should run a keep-warm round naming no pods 1 minute after its start, then every 4 minutes without other rounds, leaving the retry back-off as it was', async () => {
    // Prepare
    const w = world();
    // Act: nothing pending for 5 minutes, then a pod that stays pending
    await run(w, 600, [[300.4, () => w.watch.emit('pods', added(pending('a')))]]);
    // Assess: the first round tells the cluster is small (10 pods): the next keep-warm round is 4 minutes later
    const calls = provisionerCalls(w);
    expect(calls[0]).toEqual({ fn: 'provisioner', at: 60, payload: expect.objectContaining({ reconcile: true, pods: 0 }) });
    expect(calls.map((c) => c.at)).toEqual([60, 300, 301.4, 311.4, 331.4, 371.4, 451.4, 571.4]);
  });

  it('should run a round every minute while the provisioner reads a cluster whose snapshot it keeps warm', async () => {
    // Prepare: 50,000 pods (KEPT_WARM_FROM or more): a catch-up older than the API server's 75 s watch cache is a new LIST
    const w = world();
    w.invoker.clusterPods = 50_000;
    // Act
    await run(w, 300);
    // Assess
    expect(provisionerCalls(w).map((c) => c.at)).toEqual([60, 120, 180, 240]);
  });

  it('should ping the launch and interruption paths warm at its start and every 4 minutes, whatever the provisioner does', async () => {
    // Prepare
    const w = world();
    // Act: a pod at 100 s (a round for it), then nothing
    await run(w, 600, [[100.4, () => w.watch.emit('pods', added(pending('a')))]]);
    // Assess: the provisioner at the start; what a launch and a spot warning run first at 0, 240 and 480 s
    const first = ['validateLaunchInput', 'launchNodeClaim', 'interruption', 'validateDisruptInput', 'taintCandidates', 'launchReplacement'];
    const warmed = w.invoker.warmed.map((c) => `${c.at} ${c.fn}`);
    expect(warmed).toEqual(['0 provisioner', ...[0, 240, 480].flatMap((t) => first.map((f) => `${t} ${f}`))]);
  });

  it('should close a batch after 10 s while pods keep arriving every 0.5 s', async () => {
    // Prepare
    const w = world();
    const script: [number, () => void][] = Array.from({ length: 30 }, (_, i) => [5 + i * 0.5, () => w.watch.emit('pods', added(pending(`p${i}`)))]);
    // Act
    await run(w, 60, script);
    // Assess
    expect(provisionerCalls(w)[0].at).toBe(15);
  });

  it('should not call the provisioner for pods that are bound or not yet marked unschedulable', async () => {
    // Prepare
    const w = world();
    // Act
    await run(w, 30, [
      [
        3,
        () => {
          w.watch.emit('pods', added(pod('bound', { nodeName: 'n1' })));
          w.watch.emit('pods', added(pod('fresh', { phase: 'Pending', nodeName: undefined })));
        },
      ],
    ]);
    // Assess
    expect(provisionerCalls(w)).toEqual([]);
  });

  it('should plan the pods again at once when the claim made for them is deleted, and retry with backoff while they stay pending', async () => {
    // Prepare
    const w = world();
    const claim = {
      kind: 'nodeclaims' as const,
      name: 'default-abcde',
      nodeClaim: nodeClaim('default-abcde'),
    };
    // Act
    await run(w, 120, [
      [2, () => w.watch.emit('pods', added(pending('a')))],
      [20, () => w.watch.emit('nodeclaims', { type: 'DELETED', object: claim })],
    ]);
    // Assess
    expect(provisionerCalls(w).map((c) => c.at)).toEqual([3, 13, 21, 41, 81]);
  });

  it('should call the provisioner at once for a static NodePool, when its replicas change and when one of its claims goes', async () => {
    // Prepare
    const w = world();
    const pool = (replicas: number) => ({ kind: 'nodepools' as const, name: 'static', nodePool: { ...staticPoolOf(replicas) } });
    const claimOf = (nodePool: string, deletionTimestamp?: EpochMs) => ({
      kind: 'nodeclaims' as const,
      name: `${nodePool}-x`,
      nodeClaim: { ...nodeClaim(`${nodePool}-x`, { nodePool }), deletionTimestamp },
    });
    // Act
    await run(w, 60, [
      [5.5, () => w.watch.emit('nodepools', { type: 'ADDED', object: pool(3) })],
      [10, () => w.watch.emit('nodepools', { type: 'MODIFIED', object: pool(3) })], // e.g. a status update: nothing to do
      [20.5, () => w.watch.emit('nodepools', { type: 'MODIFIED', object: pool(5) })], // kubectl scale nodepool static --replicas=5
      [30, () => w.watch.emit('nodeclaims', { type: 'ADDED', object: claimOf('static') })],
      [40.5, () => w.watch.emit('nodeclaims', { type: 'MODIFIED', object: claimOf('static', epochMs(1000)) })], // expired or deleted
      [45, () => w.watch.emit('nodeclaims', { type: 'MODIFIED', object: claimOf('static', epochMs(1000)) })],
      [50, () => w.watch.emit('nodeclaims', { type: 'MODIFIED', object: claimOf('dynamic', epochMs(1000)) })],
    ]);
    // Assess
    expect(provisionerCalls(w).map((c) => c.at)).toEqual([5.5, 20.5, 40.5]);
  });

  it('should wake disruption after a node taint changes, but not for a status-only update', async () => {
    // Prepare
    const w = world();
    const n = node('n1', { labels: { 'karpenter.sh/nodepool': 'default' }, taints: [] });
    // Act
    await run(w, 100, [
      [1, () => w.watch.emit('nodes', { type: 'ADDED', object: { kind: 'nodes', name: 'n1', node: n } })],
      [30, () => w.watch.emit('nodes', { type: 'MODIFIED', object: { kind: 'nodes', name: 'n1', node: { ...n, allocatable: { cpu: 1 } } } })],
      [
        60,
        () => w.watch.emit('nodes', { type: 'MODIFIED', object: { kind: 'nodes', name: 'n1', node: { ...n, taints: [{ key: 'x', effect: 'NoSchedule' }] } } }),
      ],
    ]);
    // Assess
    expect(w.invoker.calls.filter((c) => c.fn === 'disruption').map((c) => c.at)).toEqual([3, 62]);
  });

  it('should list only the unbound pods, and wake disruption when a bound pod is deleted or finishes, not for its status updates', async () => {
    // Prepare: a node; bound pods are never listed, their stream starts from the current state with no object
    const w = world();
    w.watch.initial.set('nodes', [{ type: 'ADDED', object: { kind: 'nodes', name: 'n1', node: node('n1') } }]);
    w.watch.initial.set('pods', [added(pending('waiting'))]);
    const bound = (type: 'ADDED' | 'MODIFIED' | 'DELETED', p: ReturnType<typeof pod>) => () =>
      w.watch.emit('boundpods', { type, object: { kind: 'boundpods', name: p.name, pod: p } });
    // Act
    await run(w, 100, [
      [30, bound('MODIFIED', pod('web', { nodeName: 'n1' }))], // a running pod's probe or restart count
      [60, bound('DELETED', pod('web', { nodeName: 'n1' }))],
      [80, bound('MODIFIED', pod('job', { nodeName: 'n1', phase: 'Succeeded' }))],
      [95, bound('MODIFIED', pod('job', { nodeName: 'n1', phase: 'Succeeded' }))],
    ]);
    // Assess
    expect(w.watch.opened.filter((o) => o.kind === 'pods' || o.kind === 'boundpods')).toEqual([{ kind: 'pods' }, { kind: 'boundpods' }]);
    expect(w.invoker.calls.filter((c) => c.fn === 'disruption').map((c) => c.at)).toEqual([2, 62, 82]);
  });

  it("should make up for the bound pods' events it missed with a disruption pass when that stream starts again from the current state", async () => {
    // Prepare
    const w = world();
    // Act: the bound pods' stream is answered 410 Gone (its resume point too old) at 40 s
    await run(w, 100, [[40, () => w.watch.close('boundpods', { gone: true, error: 'too old resource version' })]]);
    // Assess
    expect(w.watch.opened.filter((o) => o.kind === 'boundpods')).toEqual([{ kind: 'boundpods' }, { kind: 'boundpods' }]);
    expect(w.invoker.calls.filter((c) => c.fn === 'disruption').map((c) => c.at)).toEqual([42]);
  });

  it('should watch again from the last resourceVersion after a drop, and from the current state after 410 Gone', async () => {
    // Prepare
    const w = world();
    // Act
    const result = await run(w, 30, [
      [1, () => w.watch.emit('pods', { type: 'ADDED', object: { kind: 'pods', name: 'a', pod: pod('a', { nodeName: 'n1' }) }, resourceVersion: '41' })],
      [5, () => w.watch.close('pods', { gone: false, error: 'connection reset' })],
      [10, () => w.watch.close('pods', { gone: true, error: 'too old resource version' })],
    ]);
    // Assess
    expect(w.watch.opened.filter((o) => o.kind === 'pods')).toEqual([{ kind: 'pods' }, { kind: 'pods', resourceVersion: '41' }, { kind: 'pods' }]);
    expect(result.rewatches).toBe(2);
  });

  it('should skip when another controller holds the lease well before its hand-over', async () => {
    // Prepare
    const w = world();
    await w.store.acquireLease(CONTROLLER_LEASE, 'other', 30, epochMs(T0 + 10 * 60_000));
    // Act
    const result = await run(w, 60);
    // Assess
    expect(result.skipped).toBe(true);
    expect(w.watch.opened).toEqual([]);
  });

  it('should wait for a holder that hands over within the minute and take over within a second of its release', async () => {
    // Prepare
    const w = world();
    await w.store.acquireLease(CONTROLLER_LEASE, 'other', 30, epochMs(T0 + 40_000));
    w.clock.at(T0 + 40_000, () => void w.store.releaseLease(CONTROLLER_LEASE, 'other'));
    // Act
    const result = await run(w, 120);
    // Assess
    expect(result.skipped).toBe(false);
    expect(w.log.lines.find((l) => l.message === 'controller started')).toBeDefined();
    expect(w.watch.opened.length).toBeGreaterThanOrEqual(4);
    expect(await w.store.readLease(CONTROLLER_LEASE)).toBeUndefined();
  });

  it('should start the launch of a NodeClaim no provisioner launched (applied by a user) 10 s after it appears, once', async () => {
    // Prepare: one claim a user applied; one the provisioner launched within a few seconds.
    const w = world();
    const standalone: NodeClaim = { ...nodeClaim('standalone', { nodePool: '' }), status: { conditions: [] } };
    const provisioned: NodeClaim = { ...nodeClaim('default-ccccc'), status: { conditions: [] } };
    const launched: NodeClaim = { ...provisioned, status: { providerID: 'aws:///z/i-1', conditions: [{ type: 'Launched', status: 'True' }] } };
    const event = (type: 'ADDED' | 'MODIFIED', c: NodeClaim) => ({ type, object: { kind: 'nodeclaims' as const, name: c.name, nodeClaim: c } });
    // Act
    await run(w, 40, [
      [2, () => w.watch.emit('nodeclaims', event('ADDED', standalone))],
      [3, () => w.watch.emit('nodeclaims', event('ADDED', provisioned))],
      [5, () => w.watch.emit('nodeclaims', event('MODIFIED', launched))],
      [20, () => w.watch.emit('nodeclaims', event('MODIFIED', standalone))],
    ]);
    // Assess
    expect(w.workflows.started.map((s) => [s.machine, s.name])).toEqual([['launch', 'standalone']]);
  });

  it('should start terminate within the second for a NodeClaim deleted with kubectl, and delete the claim of a deleted Node', async () => {
    // Prepare
    const w = world();
    const claimA = { ...nodeClaim('default-aaaaa', { nodeName: 'n1' }), deletionTimestamp: epochMs(T0 + 5_000) };
    const claimB = nodeClaim('default-bbbbb', { nodeName: 'n2' });
    w.cluster.claims.set(claimB.name, claimB);
    const n2 = { ...node('n2', { taints: [] }), deletionTimestamp: epochMs(T0 + 9_000) };
    // Act
    await run(w, 30, [
      [1, () => w.watch.emit('nodeclaims', { type: 'ADDED', object: { kind: 'nodeclaims', name: claimB.name, nodeClaim: claimB } })],
      [5.3, () => w.watch.emit('nodeclaims', { type: 'MODIFIED', object: { kind: 'nodeclaims', name: claimA.name, nodeClaim: claimA } })],
      [9.7, () => w.watch.emit('nodes', { type: 'MODIFIED', object: { kind: 'nodes', name: 'n2', node: n2 } })],
    ]);
    // Assess
    expect(w.workflows.started.map((s) => [s.machine, (s.input as { nodeClaimName: string }).nodeClaimName])).toEqual([
      ['terminate', 'default-aaaaa'],
      ['terminate', 'default-bbbbb'],
    ]);
    expect(w.cluster.writes).toContain('deleteNodeClaim default-bbbbb');
  });

  it('should stop at its next renewal when another controller took the lease, closing its watches and calling nothing more', async () => {
    // Prepare
    const w = world();
    // Act
    const result = await run(w, 120, [
      [15, () => void w.store.releaseLease(CONTROLLER_LEASE, 'me').then(() => w.store.acquireLease(CONTROLLER_LEASE, 'thief', 30, epochMs(T0 + 900_000)))],
      [40, () => w.watch.emit('pods', added(pending('late')))],
    ]);
    // Assess
    expect(result.skipped).toBe(false);
    expect(w.log.lines.map((l) => l.message)).toContain('controller lease lost; stopping');
    expect(provisionerCalls(w)).toEqual([]);
    expect((await w.store.readLease(CONTROLLER_LEASE))?.holder).toBe('thief');
  });
});
