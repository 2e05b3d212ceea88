/**
 * The controller under faults: per-kind resume points, a re-list that replaces what the controller knew, a lease
 * it never acts on once it may have lost it, and watches that never hold up the loop.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLLER_LEASE } from '../../../shared/core/lifecycle';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import type { StateStore } from '../../../shared/core/ports';
import { epochMs, type EpochMs } from '../../../shared/core/time';
import { nodeClaim } from '../../fakes/lifecycle';
import { T0, added, pending, provisionerCalls, run, world, type World } from './controller-fixtures';

const unlaunchedClaim = (name: string): NodeClaim => ({ ...nodeClaim(name, { nodePool: '' }), status: { conditions: [] } });

/** The store's lease renewals (the holder's second and later acquireLease calls) answered as `answer` says. */
function slowRenewals(w: World, holder: string, answer: (call: number, put: () => Promise<boolean>) => Promise<boolean>): void {
  const store: StateStore = w.store;
  const acquire = store.acquireLease.bind(store);
  let calls = 0;
  store.acquireLease = (name: string, who: string, ttl: number, until?: EpochMs) => {
    if (who !== holder || name !== CONTROLLER_LEASE || ++calls === 1) return acquire(name, who, ttl, until);
    return answer(calls, () => acquire(name, who, ttl, until));
  };
}

describe('the controller under faults', () => {
  describe('watch resume points', () => {
    it('should resume each stream from its own resourceVersion: a bookmark on the nodes stream does not move the pods stream', async () => {
      // Prepare
      const w = world();
      // Act: a pod event at rv 10; the nodes stream's bookmark is at rv 50 (the API server's newest, not the pods' cache).
      await run(w, 30, [
        [1, () => w.watch.emit('pods', added(pending('a'), '10'))],
        [2, () => w.watch.emit('nodes', { type: 'BOOKMARK', kind: 'nodes', resourceVersion: '50' })],
        [3, () => w.watch.emit('nodeclaims', { type: 'BOOKMARK', kind: 'nodeclaims', resourceVersion: '60' })],
        [5, () => w.watch.close('pods', { gone: false, error: 'connection reset' })],
        [6, () => w.watch.close('nodes', { gone: false })],
      ]);
      // Assess: the pods stream resumes at 10 (pod events 11–50 are not skipped), the nodes stream at its bookmark.
      expect(w.watch.opened.filter((o) => o.kind === 'pods')).toEqual([{ kind: 'pods' }, { kind: 'pods', resourceVersion: '10' }]);
      expect(w.watch.opened.filter((o) => o.kind === 'nodes')).toEqual([{ kind: 'nodes' }, { kind: 'nodes', resourceVersion: '50' }]);
    });

    it('should not resume from a resourceVersion seen while a stream was still listing the current state', async () => {
      // Prepare: the listing is cut off before it ends (no SYNCED)
      const w = world();
      w.watch.initial.set('pods', [added(pending('a'), '7')]);
      w.watch.listedAt = undefined;
      // Act
      await run(w, 30, [[5, () => w.watch.close('pods', { gone: false, error: 'connection reset' })]]);
      // Assess: listed again from the current state, not resumed after the one object it got
      expect(w.watch.opened.filter((o) => o.kind === 'pods')).toEqual([{ kind: 'pods' }, { kind: 'pods' }]);
    });
  });

  describe('a re-list after 410 Gone', () => {
    it('should forget pods deleted while the watch was down: their retried provisioner rounds stop', async () => {
      // Prepare: two pods pending at the start (nothing can place them: rounds retried at 10 s, 20 s, 40 s, 80 s …)
      const w = world();
      w.watch.initial.set('pods', [added(pending('a')), added(pending('b'))]);
      // Act: at 35 s the pods stream answers 410; both pods were deleted meanwhile, so the re-list has neither.
      await run(w, 200, [
        [
          35,
          () => {
            w.watch.initial.set('pods', []);
            w.watch.close('pods', { gone: true, error: 'too old resource version' });
          },
        ],
      ]);
      // Assess
      expect(provisionerCalls(w).map((c) => c.at)).toEqual([1, 11, 31]);
    });

    it('should not start the launch of a NodeClaim deleted while the watch was down', async () => {
      // Prepare
      const w = world();
      const claim = unlaunchedClaim('applied');
      // Act: a user applies a claim at 2 s; the stream breaks (410) at 5 s and the claim is gone when it lists again.
      await run(w, 40, [
        [2, () => w.watch.emit('nodeclaims', { type: 'ADDED', object: { kind: 'nodeclaims', name: claim.name, nodeClaim: claim }, resourceVersion: '9' })],
        [5, () => w.watch.close('nodeclaims', { gone: true, error: 'too old resource version' })],
      ]);
      // Assess
      expect(w.workflows.started).toEqual([]);
    });

    it('should keep what the re-list still has', async () => {
      // Prepare
      const w = world();
      const claim = unlaunchedClaim('applied');
      const event = { type: 'ADDED' as const, object: { kind: 'nodeclaims' as const, name: claim.name, nodeClaim: claim } };
      // Act
      await run(w, 40, [
        [2, () => w.watch.emit('nodeclaims', event)],
        [
          5,
          () => {
            w.watch.initial.set('nodeclaims', [event]);
            w.watch.close('nodeclaims', { gone: true, error: 'too old resource version' });
          },
        ],
      ]);
      // Assess: its launch still starts 10 s after it was first seen
      expect(w.workflows.started.map((s) => s.name)).toEqual(['applied']);
    });
  });

  describe('the lease', () => {
    it('should not act on a renewal that succeeded but answered after the lease it renewed had expired', async () => {
      // Prepare: the renewal at 10 s is written at once but its answer takes 45 s (the SDK retrying a lost answer);
      // the lease it wrote expires at 40 s and another controller takes it at 45 s.
      const w = world();
      slowRenewals(w, 'me', async (call, put) => {
        const written = await put();
        if (call === 2) await w.clock.sleep(45_000);
        return written;
      });
      // Act: a pod pending from 5 s (rounds at 6 s, then retried from 16 s)
      await run(w, 120, [
        [5, () => w.watch.emit('pods', added(pending('a')))],
        [45, () => void w.store.acquireLease(CONTROLLER_LEASE, 'thief', 30, epochMs(T0 + 900_000))],
      ]);
      // Assess: no provisioner round after 30 s (minus a margin), none on a lease another controller holds
      expect(provisionerCalls(w).map((c) => c.at)).toEqual([6, 16]);
      expect((await w.store.readLease(CONTROLLER_LEASE))?.holder).toBe('thief');
    });

    it('should start no call once its lease may have expired, while a renewal hangs', async () => {
      // Prepare: the renewal at 10 s never answers
      const w = world();
      slowRenewals(w, 'me', (call, put) => (call === 2 ? new Promise<boolean>(() => undefined) : put()));
      // Act
      await run(w, 120, [
        [5, () => w.watch.emit('pods', added(pending('a')))],
        [36, () => w.watch.emit('pods', added(pending('b')))],
      ]);
      // Assess: the lease written at 0 s is valid until 30 s; a round at 6 s, none after
      expect(provisionerCalls(w).map((c) => c.at)).toEqual([6, 16]);
    });

    it('should keep renewing through a throttled store and carry on once a renewal succeeds, without stopping', async () => {
      // Prepare: every renewal between 5 s and 50 s fails (DynamoDB throttled for 45 s)
      const w = world();
      slowRenewals(w, 'me', async (_call, put) => {
        const t = (w.clock.now() - T0) / 1000;
        if (t >= 5 && t < 50) throw Object.assign(new Error('throttled'), { name: 'StateStoreThrottledError' });
        return put();
      });
      // Act: a pod at 60 s, after the throttle
      const result = await run(w, 120, [[60.5, () => w.watch.emit('pods', added(pending('a')))]]);
      // Assess: the same controller placed it 1 s later (after its keep-warm round at 60 s); it never stopped
      expect(result.skipped).toBe(false);
      expect(
        provisionerCalls(w)
          .map((c) => c.at)
          .slice(0, 2),
      ).toEqual([60, 61.5]);
      expect(w.log.lines.map((l) => l.message)).not.toContain('controller lease may expire before it can be renewed; stopping');
    });
  });

  describe('watches that do not answer', () => {
    it('should open the streams concurrently and keep the loop (and its lease) going while one never answers', async () => {
      // Prepare: the NodeClaims watch request hangs
      const w = world();
      w.watch.hung.add('nodeclaims');
      // Act
      await run(w, 120, [[50.5, () => w.watch.emit('pods', added(pending('a')))]]);
      // Assess: every other stream opened at 0 s, the pod reached a round 1 s later, the lease held throughout
      expect(new Set(w.watch.opened.map((o) => o.kind))).toEqual(new Set(['pods', 'boundpods', 'nodes', 'nodeclaims', 'nodepools', 'nodeclasses']));
      expect(provisionerCalls(w)[0]?.at).toBe(51.5);
      expect(w.log.lines.map((l) => l.message)).not.toContain('controller lease may expire before it can be renewed; stopping');
    });
  });
});
