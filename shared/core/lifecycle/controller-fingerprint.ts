/** What a disruption pass depends on, per watched object: a change to anything else wakes nothing (controller-state.ts). */
import type { WatchEvent } from '../ports';

/** An event about one object (not a stream's progress: BOOKMARK, SYNCED). */
export type ObjectEvent = Extract<WatchEvent, { object: unknown }>;

/** What disruption reads of an object; a change to anything else (status heartbeats, probes) is not a change. */
export function fingerprint(e: ObjectEvent): string {
  const o = e.object;
  switch (o.kind) {
    case 'pods':
    case 'boundpods': {
      const p = o.pod;
      if (!p.nodeName) return 'pending';
      return `${p.nodeName}|${p.phase}|${p.deletionTimestamp ?? ''}`;
    }
    case 'nodes': {
      const n = o.node;
      return JSON.stringify([n.labels, n.taints, n.unschedulable, n.ready, n.deletionTimestamp ?? null]);
    }
    case 'nodeclaims': {
      const c = o.nodeClaim;
      return JSON.stringify([c.annotations, c.status.conditions.map((x) => `${x.type}=${x.status}`), c.status.nodeName ?? null, c.deletionTimestamp ?? null]);
    }
    case 'nodepools':
      // The hash leaves requirements out (Karpenter's drift compares them on their own): they count here too.
      return o.nodePool
        ? JSON.stringify([o.nodePool.hash, o.nodePool.template.requirements, o.nodePool.disruption, o.nodePool.limits, o.nodePool.ready !== false])
        : 'invalid';
    case 'nodeclasses':
      // Drift reads the class's hash and its resolved AMIs, subnets and security groups.
      return o.nodeClass ? JSON.stringify([o.nodeClass.hash, o.nodeClass.deleting === true, o.nodeClass.status ?? null]) : 'invalid';
  }
}
