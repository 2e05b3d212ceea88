/**
 * The API server's watch cache, per resource type: the history a watch can resume from. Sized as kube-apiserver sizes
 * it (k8s.io/apiserver pkg/storage/cacher/watch_cache.go): at least 100 events and at most 100 × 1024 per type, and
 * the events of the last 75 s (its eventFreshDuration) are kept within that — so a busy type reaches back about 75 s
 * and a quiet one its last 100 changes, however old. (The real cache may keep more than 75 s once grown; never less.)
 * A watch resuming from before what its type keeps is answered 410 Gone. etcd's compaction (`compact`) forgets all.
 */
import type { ChangeEvent, ResourceType } from './types';

const LOWER_CAPACITY = 100;
const UPPER_CAPACITY = 100 * 1024;
const FRESH_MS = 75_000;

interface History {
  events: { e: ChangeEvent; at: number; rv: number }[];
  /** Events before this index are evicted (dropped from the array in batches). */
  head: number;
  /** The resourceVersion of the newest evicted event: a resume from before it has lost events. */
  evictedAt: number;
}

const keyOf = (rt: Pick<ResourceType, 'group' | 'resource'>): string => `${rt.group}/${rt.resource}`;

export class WatchCache {
  private readonly byType = new Map<string, History>();
  /** No type reaches back before this resourceVersion (etcd's last compaction). */
  private compactedAt = 0;

  constructor(private readonly now: () => number) {}

  add(e: ChangeEvent): void {
    const key = keyOf(e.resource);
    let h = this.byType.get(key);
    if (!h) this.byType.set(key, (h = { events: [], head: 0, evictedAt: 0 }));
    const at = this.now();
    h.events.push({ e, at, rv: Number(e.object.metadata.resourceVersion) });
    const kept = () => h.events.length - h.head;
    while (kept() > UPPER_CAPACITY || (kept() > LOWER_CAPACITY && h.events[h.head].at < at - FRESH_MS)) h.evictedAt = h.events[h.head++].rv;
    if (h.head > 4096 && h.head * 2 > h.events.length) {
      h.events.splice(0, h.head);
      h.head = 0;
    }
  }

  /** The oldest resourceVersion a watch of the type can resume from (one from before it gets 410 Gone). */
  oldestResumable(rt: ResourceType): number {
    return Math.max(this.compactedAt, this.byType.get(keyOf(rt))?.evictedAt ?? 0);
  }

  /** The type's kept events after resourceVersion `since`, oldest first. */
  *after(rt: ResourceType, since: number): Generator<ChangeEvent> {
    const h = this.byType.get(keyOf(rt));
    if (!h) return;
    let lo = h.head;
    let hi = h.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (h.events[mid].rv <= since) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < h.events.length; i++) yield h.events[i].e;
  }

  /** etcd's compaction at `resourceVersion`: every type's history is gone. */
  compact(resourceVersion: number): void {
    this.byType.clear();
    this.compactedAt = resourceVersion;
  }
}
