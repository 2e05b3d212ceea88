import { describe, expect, it } from 'vitest';
import { WatchCache } from '../../../shared/sim/kube/watch-cache';
import type { ChangeEvent, ResourceType } from '../../../shared/sim/kube/types';

const pods = { group: '', resource: 'pods' } as ResourceType;
const nodes = { group: '', resource: 'nodes' } as ResourceType;

function cache() {
  let now = 0;
  let rv = 0;
  const c = new WatchCache(() => now);
  const write = (rt: ResourceType) => c.add({ type: 'MODIFIED', resource: rt, object: { metadata: { resourceVersion: String(++rv) } } } as ChangeEvent);
  return { c, write, at: (ms: number) => (now = ms), rv: () => rv };
}

describe('the simulated API server watch cache', () => {
  it("should keep a busy type's last 75 s of events, however many, and a quiet type's last 100, however old", () => {
    // Prepare
    const { c, write, at, rv } = cache();
    // Act: a node write a second for 150 s; then 20,000 pod writes within a minute, a quiet 2 minutes, one more
    for (let i = 0; i < 150; i++) {
      at(i * 1000);
      write(nodes);
    }
    const nodesBefore = rv();
    for (let i = 0; i < 20_000; i++) {
      at(200_000 + i * 3);
      write(pods);
    }
    const podsOneMinuteAgo = rv() - 1000;
    at(400_000);
    write(pods);
    // Assess
    expect(c.oldestResumable(nodes)).toBe(50); // at 149 s, the last 100 of 150 node writes (more than the last 75 s)
    expect(nodesBefore).toBeGreaterThan(c.oldestResumable(nodes));
    expect(c.oldestResumable(pods)).toBeGreaterThan(podsOneMinuteAgo); // 2 minutes later only the last 100 remain
    expect([...c.after(pods, c.oldestResumable(pods))]).toHaveLength(100);
  });

  it('should replay only the events of the type after a resourceVersion, and forget everything at a compaction', () => {
    // Prepare
    const { c, write, rv } = cache();
    write(pods);
    const from = rv();
    write(nodes);
    write(pods);
    write(pods);
    // Act
    const replay = [...c.after(pods, from)].map((e) => e.object.metadata.resourceVersion);
    c.compact(rv());
    // Assess
    expect(replay).toEqual(['3', '4']);
    expect(c.oldestResumable(nodes)).toBe(4);
    expect([...c.after(pods, 0)]).toEqual([]);
  });
});
