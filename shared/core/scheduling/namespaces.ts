/**
 * Which namespaces a pod affinity term reaches, as kube-scheduler and Karpenter read it: the union of `namespaces`
 * and the namespaces whose labels `namespaceSelector` matches; an empty selector (`{}`) matches every namespace;
 * neither set means the pod's own namespace. Namespaces are those read from the cluster (their labels) and those of
 * the pods at hand (labelled only `kubernetes.io/metadata.name`, which the API server gives every namespace).
 */
import type { Namespace, Pod, PodAffinityTerm } from '../model/kube';
import type { SchedulingInput } from './types';
import { compileSelector } from './selectors';

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** Whether any of the pod's affinity terms selects namespaces by label (the cluster's Namespaces are then read). */
export function selectsNamespacesByLabel(pod: Pick<Pod, 'affinity'>): boolean {
  const a = pod.affinity;
  if (!a) return false;
  const terms = [
    ...(a.podAffinity?.required ?? []),
    ...(a.podAntiAffinity?.required ?? []),
    ...(a.podAffinity?.preferred ?? []).map((w) => w.podAffinityTerm),
    ...(a.podAntiAffinity?.preferred ?? []).map((w) => w.podAffinityTerm),
  ];
  return terms.some((t) => t.namespaceSelector !== undefined && Object.keys(t.namespaceSelector).length > 0);
}

export class NamespaceIndex {
  private index?: Map<string, Record<string, string>>;

  /** `podNamespaces` is asked only when a term selects namespaces by label (most solves never need it). */
  constructor(
    private readonly namespaces: readonly Namespace[] | (() => readonly Namespace[]) = [],
    private readonly podNamespaces: () => Iterable<string> = () => [],
  ) {}

  private get labels(): Map<string, Record<string, string>> {
    if (this.index) return this.index;
    const m = (this.index = new Map());
    for (const n of typeof this.namespaces === 'function' ? this.namespaces() : this.namespaces) m.set(n.name, { ...n.labels, [NAME_LABEL]: n.name });
    for (const ns of this.podNamespaces()) if (!m.has(ns)) m.set(ns, { [NAME_LABEL]: ns });
    return m;
  }

  /** The namespaces the term reaches from a pod in `own`, or 'all'. */
  termNamespaces(own: string, term: Pick<PodAffinityTerm, 'namespaces' | 'namespaceSelector'>): ReadonlySet<string> | 'all' {
    const sel = term.namespaceSelector;
    if (sel && Object.keys(sel).length === 0) return 'all';
    const out = new Set(term.namespaces ?? []);
    if (sel) {
      const matches = compileSelector(sel);
      for (const [name, labels] of this.labels) if (matches(labels)) out.add(name);
    } else if (out.size === 0) out.add(own);
    return out;
  }
}

/** The index for one solve: the input's Namespaces, and the namespaces of its pending and running pods. */
export function namespaceIndexOf(input: Pick<SchedulingInput, 'namespaces' | 'pods' | 'existingNodes'>): NamespaceIndex {
  return new NamespaceIndex(input.namespaces, function* () {
    for (const p of input.pods) yield p.namespace;
    for (const n of input.existingNodes) for (const p of n.pods) yield p.namespace;
  });
}
