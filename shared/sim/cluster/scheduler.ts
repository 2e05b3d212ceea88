/**
 * kube-scheduler, simulated: binds each pending pod to a Ready, schedulable node it fits (resources and pod
 * slots, NoSchedule/NoExecute taints incl. karpenter.sh/disrupted and unregistered, nodeSelector and
 * required node affinity, required pod (anti-)affinity, DoNotSchedule topology spread) and marks the rest
 * PodScheduled=False reason Unschedulable, which is what nodewright's provisioner looks for.
 */
import { nodeFromKube, podFromKube } from '../../core/model/from-kube';
import type { Node, Pod, PodAffinityTerm } from '../../core/model/kube';
import { Requirements } from '../../core/scheduling/requirements';
import { compileSelector, untoleratedTaint } from '../../core/scheduling/selectors';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { isDaemonSetPod, isLivePod, kubeTypes, podNodeName, withCondition, type KubeTypes } from './kube-objects';
import { runningStatus } from './pod-content';

interface NodeState {
  node: Node;
  obj: KubeObject;
  used: Record<string, number>;
  pods: Pod[];
}

export interface SchedulerResult {
  bound: { pod: string; node: string }[];
  unschedulable: string[];
}

function fitsResources(pod: Pod, n: NodeState): string | undefined {
  if ((n.used.pods ?? 0) + 1 > (n.node.allocatable.pods ?? 110)) return 'Too many pods';
  for (const [r, q] of Object.entries(pod.requests)) {
    if (q <= 0 || r === 'pods') continue;
    if ((n.used[r] ?? 0) + q > (n.node.allocatable[r] ?? 0)) return `Insufficient ${r}`;
  }
  return undefined;
}

function nodeAffinityOk(pod: Pod, node: Node): boolean {
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  const terms = pod.affinity?.nodeAffinity?.required;
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => Requirements.fromNodeSelector(t.matchExpressions).matchesLabels(node.labels));
}

const termMatches = (term: PodAffinityTerm, owner: Pod, other: Pod): boolean =>
  (term.namespaces?.length ? term.namespaces.includes(other.namespace) : other.namespace === owner.namespace) &&
  compileSelector(term.labelSelector)(other.labels);

/**
 * One pass's view of the bound pods by topology domain, kept as pods are placed: the pods in a node's domain
 * and the required anti-affinity terms of the pods there, without scanning every node for every candidate.
 */
class Domains {
  /** topology key → domain value → the pods bound there (built on first use of the key). */
  private readonly pods = new Map<string, Map<string, Pod[]>>();
  /** topology key → domain value → the required anti-affinity terms (of that key) of the pods bound there. */
  private readonly anti = new Map<string, Map<string, { term: PodAffinityTerm; owner: Pod }[]>>();

  constructor(private readonly all: NodeState[]) {
    for (const n of all) for (const p of n.pods) this.indexAnti(n, p);
  }

  /** The pods bound in the node's domain of `key` (none when the node has no such label). */
  podsIn(key: string, n: NodeState): Pod[] {
    const value = n.node.labels[key];
    if (value === undefined) return [];
    let byValue = this.pods.get(key);
    if (!byValue) {
      this.pods.set(key, (byValue = new Map()));
      for (const o of this.all) for (const p of o.pods) this.add(byValue, o.node.labels[key], p);
    }
    return byValue.get(value) ?? [];
  }

  /** The required anti-affinity terms of bound pods whose domain contains the node. */
  *antiTermsAt(n: NodeState): Generator<{ term: PodAffinityTerm; owner: Pod }> {
    for (const [key, byValue] of this.anti) {
      const value = n.node.labels[key];
      if (value !== undefined) yield* byValue.get(value) ?? [];
    }
  }

  placed(n: NodeState, pod: Pod): void {
    for (const [key, byValue] of this.pods) this.add(byValue, n.node.labels[key], pod);
    this.indexAnti(n, pod);
  }

  private indexAnti(n: NodeState, pod: Pod): void {
    for (const term of pod.affinity?.podAntiAffinity?.required ?? []) {
      let byValue = this.anti.get(term.topologyKey);
      if (!byValue) this.anti.set(term.topologyKey, (byValue = new Map()));
      this.add(byValue, n.node.labels[term.topologyKey], { term, owner: pod });
    }
  }

  private add<T>(byValue: Map<string, T[]>, value: string | undefined, item: T): void {
    if (value === undefined) return;
    const list = byValue.get(value);
    if (list) list.push(item);
    else byValue.set(value, [item]);
  }
}

function podAffinityOk(pod: Pod, n: NodeState, all: NodeState[], domains: Domains): boolean {
  for (const term of pod.affinity?.podAntiAffinity?.required ?? []) {
    if (domains.podsIn(term.topologyKey, n).some((o) => termMatches(term, pod, o))) return false;
  }
  // Existing pods' anti-affinity applies symmetrically.
  for (const { term, owner } of domains.antiTermsAt(n)) if (termMatches(term, owner, pod)) return false;
  for (const term of pod.affinity?.podAffinity?.required ?? []) {
    const anywhere = all.some((o) => o.pods.some((p) => termMatches(term, pod, p)));
    if (anywhere && !domains.podsIn(term.topologyKey, n).some((o) => termMatches(term, pod, o))) return false;
  }
  return true;
}

/**
 * The pods each DoNotSchedule spread constraint of the pod counts per domain (over the nodes the pod's node
 * affinity allows), computed once per pending pod: nothing is placed while its candidate nodes are compared.
 */
function spreadCounts(pod: Pod, all: NodeState[]): (Map<string, number> | undefined)[] {
  return pod.topologySpreadConstraints.map((c) => {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') return undefined;
    const matches = compileSelector(c.labelSelector);
    const counts = new Map<string, number>();
    for (const o of all) {
      const d = o.node.labels[c.topologyKey];
      if (d === undefined || !nodeAffinityOk(pod, o.node)) continue;
      counts.set(d, (counts.get(d) ?? 0) + o.pods.filter((p) => p.namespace === pod.namespace && matches(p.labels)).length);
    }
    return counts;
  });
}

function spreadOk(pod: Pod, n: NodeState, counts: (Map<string, number> | undefined)[]): boolean {
  for (let i = 0; i < pod.topologySpreadConstraints.length; i++) {
    const c = pod.topologySpreadConstraints[i];
    const perDomain = counts[i];
    if (!perDomain) continue;
    const value = n.node.labels[c.topologyKey];
    if (value === undefined) return false;
    const min = Math.min(...perDomain.values());
    if ((perDomain.get(value) ?? 0) + 1 - min > c.maxSkew) return false;
  }
  return true;
}

/** What one pending pod is checked against: every node, the domains of the bound pods, its spread counts. */
interface Candidates {
  all: NodeState[];
  domains: Domains;
  spread: (Map<string, number> | undefined)[];
}

/** Why the node cannot take the pod, or undefined when it can. */
function misfit(pod: Pod, n: NodeState, c: Candidates): string | undefined {
  if (!n.node.ready) return 'node(s) were not ready';
  if (n.node.unschedulable || n.node.deletionTimestamp !== undefined) return 'node(s) were unschedulable';
  const taint = untoleratedTaint(
    pod,
    n.node.taints.filter((t) => t.effect !== 'PreferNoSchedule'),
  );
  if (taint) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  if (!nodeAffinityOk(pod, n.node)) return "node(s) didn't match Pod's node affinity/selector";
  const res = fitsResources(pod, n);
  if (res) return res;
  if (!podAffinityOk(pod, n, c.all, c.domains)) return "node(s) didn't match pod affinity/anti-affinity rules";
  if (!spreadOk(pod, n, c.spread)) return "node(s) didn't match pod topology spread constraints";
  return undefined;
}

function score(pod: Pod, n: NodeState): number {
  const cpu = (n.node.allocatable.cpu ?? 1) || 1;
  const mem = (n.node.allocatable.memory ?? 1) || 1;
  // LeastAllocated: prefer the node with the most room left after placement.
  return ((cpu - (n.used.cpu ?? 0) - (pod.requests.cpu ?? 0)) / cpu + (mem - (n.used.memory ?? 0) - (pod.requests.memory ?? 0)) / mem) / 2;
}

/** The pod counted on the node: one more pod slot and its requests used. */
function place(n: NodeState, pod: Pod): void {
  n.pods.push(pod);
  n.used.pods = (n.used.pods ?? 0) + 1;
  for (const [r, q] of Object.entries(pod.requests)) if (r !== 'pods') n.used[r] = (n.used[r] ?? 0) + q;
}

/** The highest-scoring node that can take the pod (the first in `sorted` on a tie); counts each misfit reason into `reasons`. */
function bestNode(pod: Pod, sorted: NodeState[], all: NodeState[], domains: Domains, reasons: Map<string, number>): NodeState | undefined {
  let best: NodeState | undefined;
  let bestScore = -Infinity;
  const candidates: Candidates = { all, domains, spread: spreadCounts(pod, all) };
  for (const n of sorted) {
    const why = misfit(pod, n, candidates);
    if (why) {
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
      continue;
    }
    const s = score(pod, n);
    if (s > bestScore) {
      best = n;
      bestScore = s;
    }
  }
  return best;
}

type PodStatus = { conditions?: Record<string, unknown>[] };

/** Binds the pod to the node (spec.nodeName), then the node's kubelet runs it: Running, Ready, with the status a kubelet writes. */
function bindPod(store: KubeStore, types: KubeTypes, obj: KubeObject, pod: Pod, node: NodeState, status: PodStatus, nowIso: string): void {
  const next = structuredClone(obj);
  next.spec = { ...(next.spec ?? {}), nodeName: node.node.name };
  const bound = store.update(types.pod, pod.namespace, pod.name, next, { manager: 'kube-scheduler' });
  const hostIp =
    ((node.obj.status?.addresses as { type?: string; address?: string }[] | undefined) ?? []).find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
  store.update(
    types.pod,
    pod.namespace,
    pod.name,
    { ...bound, status: runningStatus(bound, hostIp, nowIso, status) },
    { subresource: 'status', manager: 'kubelet' },
  );
}

/** PodScheduled=False reason Unschedulable with the message (written only when it changes). */
function markUnschedulable(store: KubeStore, types: KubeTypes, obj: KubeObject, pod: Pod, message: string, status: PodStatus, nowIso: string): void {
  const current = status.conditions?.find((c) => c.type === 'PodScheduled');
  if (current?.status !== 'False' || current.message !== message) {
    store.update(
      types.pod,
      pod.namespace,
      pod.name,
      {
        ...structuredClone(obj),
        status: {
          ...status,
          phase: 'Pending',
          conditions: withCondition(status.conditions, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, nowIso),
        },
      },
      { subresource: 'status', manager: 'kube-scheduler' },
    );
  }
}

/**
 * Stored objects are never changed in place (a write stores a new object), so each one's model is read once,
 * however many passes see it.
 */
const podModels = new WeakMap<KubeObject, Pod>();
const nodeModels = new WeakMap<KubeObject, Node>();
function modelOf<T>(models: WeakMap<KubeObject, T>, obj: KubeObject, read: (o: never) => T): T {
  let m = models.get(obj);
  if (!m) models.set(obj, (m = read(obj as never)));
  return m;
}

export function runScheduler(store: KubeStore): SchedulerResult {
  const types = kubeTypes(store);
  const nowIso = store.timestamp();
  const nodes: NodeState[] = store.scan(types.node).map((obj) => ({ obj, node: modelOf(nodeModels, obj, nodeFromKube), used: {}, pods: [] }));
  const byName = new Map(nodes.map((n) => [n.node.name, n]));
  const pending: { obj: KubeObject; pod: Pod }[] = [];
  for (const obj of store.scan(types.pod)) {
    if (!isLivePod(obj) || obj.metadata.deletionTimestamp) continue;
    const pod = modelOf(podModels, obj, podFromKube);
    const nodeName = podNodeName(obj);
    if (nodeName) {
      const n = byName.get(nodeName);
      if (!n) continue;
      place(n, pod);
    } else if (!isDaemonSetPod(obj)) {
      pending.push({ obj, pod });
    }
  }
  pending.sort(
    (a, b) =>
      b.pod.priority - a.pod.priority ||
      a.pod.creationTimestamp - b.pod.creationTimestamp ||
      `${a.pod.namespace}/${a.pod.name}`.localeCompare(`${b.pod.namespace}/${b.pod.name}`),
  );
  const out: SchedulerResult = { bound: [], unschedulable: [] };
  const sorted = [...nodes].sort((a, b) => a.node.name.localeCompare(b.node.name));
  const domains = new Domains(nodes);
  for (const { obj, pod } of pending) {
    const reasons = new Map<string, number>();
    const best = bestNode(pod, sorted, nodes, domains, reasons);
    const key = `${pod.namespace}/${pod.name}`;
    const status = (obj.status ?? {}) as PodStatus;
    if (best) {
      place(best, pod);
      domains.placed(best, pod);
      bindPod(store, types, obj, pod, best, status, nowIso);
      out.bound.push({ pod: key, node: best.node.name });
    } else {
      const message = `0/${nodes.length} nodes are available: ${[...reasons].map(([r, c]) => `${c} ${r}`).join(', ') || 'no nodes'}.`;
      markUnschedulable(store, types, obj, pod, message, status, nowIso);
      out.unschedulable.push(key);
    }
  }
  return out;
}
