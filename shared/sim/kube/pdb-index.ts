/**
 * The pods each PodDisruptionBudget selector counts, kept from the pod writes rather than read from every pod of the
 * namespace on each question: a budget's figures cost its distinct pod controllers, not its namespace's pods (an
 * eviction, and the simulator's own check after it, asked over every pod — quadratic in a consolidation wave).
 */
import { matchesStructuredSelector } from './selectors';
import type { KubeStore } from './store';
import type { ChangeEvent, Json, KubeObject } from './types';

export type OwnerRef = { kind?: string; name?: string; controller?: boolean };
export const controllerOf = (o: KubeObject): OwnerRef | undefined => ((o.metadata.ownerReferences ?? []) as OwnerRef[]).find((r) => r.controller);

export const podReady = (p: KubeObject): boolean => {
  const conds = (p.status?.conditions ?? []) as { type: string; status: string }[];
  return !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && conds.some((c) => c.type === 'Ready' && c.status === 'True');
};

/** What one selected pod adds to its budget's figures. */
interface Member {
  healthy: boolean;
  deleting: boolean;
  ref: string;
}

/** The pods of one namespace one selector selects (not Succeeded or Failed), counted. */
export class SelectedPods {
  private readonly members = new Map<string, Member>();
  healthy = 0;
  /** Selected pods not being deleted. */
  live = 0;
  /** Each controller reference (`kind/name`) of the selected pods: the reference and how many pods name it. */
  readonly refs = new Map<string, { ref: OwnerRef | undefined; count: number }>();

  constructor(
    /** undefined: every namespace. */
    readonly namespace: string | undefined,
    private readonly selector: Json | undefined,
    pods: readonly KubeObject[],
  ) {
    for (const p of pods) this.add(p);
  }

  /** A pod write: what it was no longer counts, what it is now counts if selected (`stored`: false when the pod is gone). */
  write(p: KubeObject, stored: boolean): void {
    this.remove(`${p.metadata.namespace}/${p.metadata.name}`);
    if (stored) this.add(p);
  }

  private add(p: KubeObject): void {
    if (!matchesStructuredSelector(p.metadata.labels, this.selector) || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return;
    const ref = controllerOf(p);
    const m: Member = { healthy: podReady(p), deleting: Boolean(p.metadata.deletionTimestamp), ref: `${ref?.kind}/${ref?.name}` };
    this.members.set(`${p.metadata.namespace}/${p.metadata.name}`, m);
    if (m.healthy) this.healthy++;
    if (!m.deleting) this.live++;
    const r = this.refs.get(m.ref);
    if (r) r.count++;
    else this.refs.set(m.ref, { ref, count: 1 });
  }

  private remove(key: string): void {
    const m = this.members.get(key);
    if (!m) return;
    this.members.delete(key);
    if (m.healthy) this.healthy--;
    if (!m.deleting) this.live--;
    const r = this.refs.get(m.ref)!;
    if (--r.count === 0) this.refs.delete(m.ref);
  }
}

/** Per store: the selected pods by namespace and selector, told of every pod write before any listener. */
const indexes = new WeakMap<KubeStore, Map<string, SelectedPods>>();

/** The pods a budget of the namespace with the selector counts, as they stand. */
export function selectedPods(store: KubeStore, namespace: string | undefined, selector: Json | undefined): SelectedPods {
  let byKey = indexes.get(store);
  if (!byKey) {
    const index = (byKey = new Map());
    indexes.set(store, index);
    store.onChangeFirst((e: ChangeEvent) => {
      if (e.resource.group !== '' || e.resource.resource !== 'pods') return;
      const ns = e.object.metadata.namespace;
      for (const selected of index.values()) if (selected.namespace === undefined || selected.namespace === ns) selected.write(e.object, e.type !== 'DELETED');
    });
  }
  const key = `${namespace}\u0000${JSON.stringify(selector ?? null)}`;
  let selected = byKey.get(key);
  if (!selected) {
    const rt = store.registry.get('', 'pods');
    byKey.set(key, (selected = new SelectedPods(namespace, selector, rt ? store.scan(rt, namespace) : [])));
  }
  return selected;
}
