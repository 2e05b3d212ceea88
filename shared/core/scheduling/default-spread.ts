/**
 * kube-scheduler's default topology spread (its PodTopologySpread plugin's `defaultConstraints`, given to nodewright as
 * Karpenter v1.12+ takes it: `SCHEDULER_CONFIG` / the `schedulerConfig` deploy parameter), applied to the scheduling
 * copies of the pods that declare no topologySpreadConstraints of their own (all or nothing, as kube-scheduler). Each
 * gets the defaults with the selector kube-scheduler deduces (helper.DefaultSelector, as Karpenter's
 * DefaultTopologySpreadInjector): the selectors of the Services in its namespace that select it, merged as equality
 * matches, then its ReplicaSet's / StatefulSet's selector (a ReplicationController's as labels). No selector: no defaults.
 */
import type { LabelSelector, LabelSelectorRequirement, Pod, TopologySpreadConstraint } from '../model/kube';

/** What the deduction reads: the Services' selectors, and the controllers' selectors by `<namespace>/<kind>/<name>`. */
export interface SpreadSources {
  services: readonly { namespace: string; selector?: Record<string, string> }[];
  owners: ReadonlyMap<string, LabelSelector>;
}

const OWNER_KINDS = new Set(['ReplicaSet', 'StatefulSet', 'ReplicationController']);

export const ownerKey = (namespace: string, kind: string, name: string) => `${namespace}/${kind}/${name}`;

/** The selector kube-scheduler deduces for the pod, or undefined when it deduces none. */
export function defaultSelector(pod: Pod, sources: SpreadSources): LabelSelector | undefined {
  const matchLabels: Record<string, string> = {};
  for (const s of sources.services) {
    // A Service without a selector selects nothing; an empty one every pod, contributing no labels.
    if (s.namespace !== pod.namespace || !s.selector) continue;
    if (Object.entries(s.selector).every(([k, v]) => pod.labels[k] === v)) Object.assign(matchLabels, s.selector);
  }
  const matchExpressions: LabelSelectorRequirement[] = [];
  const owner = pod.owner && OWNER_KINDS.has(pod.owner.kind) ? sources.owners.get(ownerKey(pod.namespace, pod.owner.kind, pod.owner.name)) : undefined;
  if (owner && pod.owner!.kind === 'ReplicationController') Object.assign(matchLabels, owner.matchLabels ?? {});
  else if (owner) {
    for (const [key, value] of Object.entries(owner.matchLabels ?? {})) matchExpressions.push({ key, operator: 'In', values: [value] });
    matchExpressions.push(...(owner.matchExpressions ?? []));
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined;
  return { ...(Object.keys(matchLabels).length ? { matchLabels } : {}), ...(matchExpressions.length ? { matchExpressions } : {}) };
}

/** The pods, those without constraints of their own given the defaults with their deduced selector (copies; the rest as they are). */
export function withDefaultSpread(pods: Pod[], defaults: readonly TopologySpreadConstraint[], sources: SpreadSources): Pod[] {
  if (defaults.length === 0) return pods;
  const cache = new Map<string, LabelSelector | undefined>();
  return pods.map((p) => {
    if (p.topologySpreadConstraints.length > 0) return p;
    const key = `${p.namespace}|${p.owner?.kind ?? ''}/${p.owner?.name ?? ''}|${JSON.stringify(p.labels)}`;
    if (!cache.has(key)) cache.set(key, defaultSelector(p, sources));
    const selector = cache.get(key);
    return selector ? { ...p, topologySpreadConstraints: defaults.map((d) => ({ ...d, labelSelector: selector })) } : p;
  });
}
