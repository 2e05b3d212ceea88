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
import { isDaemonSetPod, isLivePod, kubeTypes, listAll, podNodeName, withCondition, type KubeTypes } from './kube-objects';

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

function podAffinityOk(pod: Pod, n: NodeState, all: NodeState[]): boolean {
  const domainPods = (key: string): Pod[] => {
    const value = n.node.labels[key];
    if (value === undefined) return [];
    return all.filter((o) => o.node.labels[key] === value).flatMap((o) => o.pods);
  };
  for (const term of pod.affinity?.podAntiAffinity?.required ?? []) {
    if (domainPods(term.topologyKey).some((o) => termMatches(term, pod, o))) return false;
  }
  // Existing pods' anti-affinity applies symmetrically.
  for (const o of all) {
    for (const other of o.pods) {
      for (const term of other.affinity?.podAntiAffinity?.required ?? []) {
        const v = o.node.labels[term.topologyKey];
        if (v !== undefined && n.node.labels[term.topologyKey] === v && termMatches(term, other, pod)) return false;
      }
    }
  }
  for (const term of pod.affinity?.podAffinity?.required ?? []) {
    const anywhere = all.some((o) => o.pods.some((p) => termMatches(term, pod, p)));
    if (anywhere && !domainPods(term.topologyKey).some((o) => termMatches(term, pod, o))) return false;
  }
  return true;
}

function spreadOk(pod: Pod, n: NodeState, all: NodeState[]): boolean {
  for (const c of pod.topologySpreadConstraints) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const value = n.node.labels[c.topologyKey];
    if (value === undefined) return false;
    const matches = compileSelector(c.labelSelector);
    const counts = new Map<string, number>();
    for (const o of all) {
      const d = o.node.labels[c.topologyKey];
      if (d === undefined || !nodeAffinityOk(pod, o.node)) continue;
      counts.set(d, (counts.get(d) ?? 0) + o.pods.filter((p) => p.namespace === pod.namespace && matches(p.labels)).length);
    }
    const min = Math.min(...counts.values());
    if ((counts.get(value) ?? 0) + 1 - min > c.maxSkew) return false;
  }
  return true;
}

/** Why the node cannot take the pod, or undefined when it can. */
function misfit(pod: Pod, n: NodeState, all: NodeState[]): string | undefined {
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
  if (!podAffinityOk(pod, n, all)) return "node(s) didn't match pod affinity/anti-affinity rules";
  if (!spreadOk(pod, n, all)) return "node(s) didn't match pod topology spread constraints";
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
function bestNode(pod: Pod, sorted: NodeState[], all: NodeState[], reasons: Map<string, number>): NodeState | undefined {
  let best: NodeState | undefined;
  let bestScore = -Infinity;
  for (const n of sorted) {
    const why = misfit(pod, n, all);
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

/** Binds the pod to the node (spec.nodeName), then marks it scheduled, Ready and Running. */
function bindPod(store: KubeStore, types: KubeTypes, obj: KubeObject, pod: Pod, nodeName: string, status: PodStatus, nowIso: string): void {
  const next = structuredClone(obj);
  next.spec = { ...(next.spec ?? {}), nodeName };
  const bound = store.update(types.pod, pod.namespace, pod.name, next);
  const conditions = withCondition(
    withCondition(status.conditions, { type: 'PodScheduled', status: 'True' }, nowIso),
    { type: 'Ready', status: 'True' },
    nowIso,
  );
  store.update(
    types.pod,
    pod.namespace,
    pod.name,
    { ...bound, status: { ...status, phase: 'Running', startTime: nowIso, conditions } },
    { subresource: 'status' },
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
      { subresource: 'status' },
    );
  }
}

export function runScheduler(store: KubeStore): SchedulerResult {
  const types = kubeTypes(store);
  const nowIso = store.timestamp();
  const nodes: NodeState[] = listAll(store, types.node).map((obj) => ({ obj, node: nodeFromKube(obj as never), used: {}, pods: [] }));
  const byName = new Map(nodes.map((n) => [n.node.name, n]));
  const pending: { obj: KubeObject; pod: Pod }[] = [];
  for (const obj of listAll(store, types.pod)) {
    if (!isLivePod(obj) || obj.metadata.deletionTimestamp) continue;
    const pod = podFromKube(obj as never);
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
  for (const { obj, pod } of pending) {
    const reasons = new Map<string, number>();
    const best = bestNode(pod, sorted, nodes, reasons);
    const key = `${pod.namespace}/${pod.name}`;
    const status = (obj.status ?? {}) as PodStatus;
    if (best) {
      place(best, pod);
      bindPod(store, types, obj, pod, best.node.name, status, nowIso);
      out.bound.push({ pod: key, node: best.node.name });
    } else {
      const message = `0/${nodes.length} nodes are available: ${[...reasons].map(([r, c]) => `${c} ${r}`).join(', ') || 'no nodes'}.`;
      markUnschedulable(store, types, obj, pod, message, status, nowIso);
      out.unschedulable.push(key);
    }
  }
  return out;
}
