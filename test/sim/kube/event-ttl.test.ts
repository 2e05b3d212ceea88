import { describe, expect, it } from 'vitest';
import { createFakeKubeApi, type KubeObject } from '../../../shared/sim/kube';
import { T0 } from './fixtures';

const event = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'Node', name: 'n1' },
  reason: 'Test',
  message: name,
  count: 1,
});

describe('fake API server: Event TTL (--event-ttl, 1 h by default)', () => {
  it('should delete an Event an hour after its last write, with a DELETED event to watchers, and keep one written again', () => {
    // Prepare
    const clock = { now: T0 };
    const api = createFakeKubeApi({ clock: () => clock.now });
    const rt = api.store.typeOf('v1', 'Event');
    const deleted: string[] = [];
    api.onChange((e) => {
      if (e.type === 'DELETED' && e.resource.resource === 'events') deleted.push(e.object.metadata.name ?? '');
    });
    api.apply(event('old'));
    api.apply(event('bumped'));
    clock.now += 30 * 60_000;
    api.store.patch(rt, 'default', 'bumped', 'application/merge-patch+json', { count: 2 });
    // Act
    clock.now += 30 * 60_000 + 1000;
    const listed = api.store.list(rt).items.map((o) => o.metadata.name);
    clock.now += 30 * 60_000;
    api.apply(event('new'));
    // Assess
    expect(listed).toEqual(['bumped']);
    expect(deleted).toEqual(['old', 'bumped']);
    expect(api.store.list(rt).items.map((o) => o.metadata.name)).toEqual(['new']);
  });
});
