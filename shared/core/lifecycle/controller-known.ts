/**
 * What the controller's watch streams say exists, per kind — only so that a stream listing the current state
 * again (after a 410 Gone, or any restart without a resume point) can replace what the controller knew, as
 * client-go's reflector replaces its store: an object not in the new listing was deleted while the stream was
 * down, and the controller hears of it as DELETED (client-go's DeletedFinalStateUnknown).
 */
import type { Pod } from '../model/kube';
import type { WatchedKind, WatchedObject } from '../ports';
import { epochMs } from '../time';
import type { ObjectEvent } from './controller-fingerprint';

/** The key an object is known by: a pod's uid (a pod re-created under its name is another pod), else the name. */
const keyOf = (o: WatchedObject): string => (o.kind === 'pods' || o.kind === 'boundpods' ? o.pod.uid : o.name);

/** A pod known only by its uid: all a DELETED needs (the controller keys everything about a pod by uid). */
function podGone(uid: string): Pod {
  return {
    uid,
    namespace: '',
    name: '',
    labels: {},
    annotations: {},
    creationTimestamp: epochMs(0),
    phase: 'Unknown',
    requests: {},
    nodeSelector: {},
    tolerations: [],
    topologySpreadConstraints: [],
    hostPorts: [],
    volumeClaims: [],
    priority: 0,
    terminationGracePeriodSeconds: 0,
  };
}

export class KnownObjects {
  /** Pending pods by uid only (the `pods` stream has no bound pod; `boundpods` is never listed, so not kept). */
  private readonly pods = new Set<string>();
  /** The other kinds by name → the object as last seen (nodes and NodeClaims the loop keeps anyway). */
  private readonly others = new Map<WatchedKind, Map<string, WatchedObject>>();

  private of(kind: WatchedKind): Map<string, WatchedObject> {
    let m = this.others.get(kind);
    if (!m) this.others.set(kind, (m = new Map()));
    return m;
  }

  /** Records one event; returns the object's key. */
  apply(e: ObjectEvent): string {
    const o = e.object;
    const key = keyOf(o);
    if (o.kind === 'boundpods') return key;
    if (o.kind === 'pods') {
      if (e.type === 'DELETED') this.pods.delete(key);
      else this.pods.add(key);
    } else if (e.type === 'DELETED') this.of(o.kind).delete(key);
    else this.of(o.kind).set(key, o);
    return key;
  }

  /** A DELETED for each known object of `kind` whose key is not in `listed`; they are forgotten. */
  replace(kind: WatchedKind, listed: ReadonlySet<string>): ObjectEvent[] {
    const gone: ObjectEvent[] = [];
    if (kind === 'pods') {
      for (const uid of this.pods) if (!listed.has(uid)) gone.push({ type: 'DELETED', object: { kind: 'pods', name: '', pod: podGone(uid) } });
    } else {
      for (const [name, object] of this.of(kind)) if (!listed.has(name)) gone.push({ type: 'DELETED', object });
    }
    for (const e of gone) this.apply(e);
    return gone;
  }
}
