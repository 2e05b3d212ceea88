/**
 * kube-scheduler, simulated: binds each pending pod to a Ready, schedulable node it fits (resources and pod
 * slots, NoSchedule/NoExecute taints incl. karpenter.sh/disrupted and unregistered, nodeSelector and
 * required node affinity, required pod (anti-)affinity, DoNotSchedule topology spread) and marks the rest
 * PodScheduled=False reason Unschedulable, which is what nodewright's provisioner looks for.
 */
import type { Pod, PodAffinityTerm } from '../../core/model/kube';
import { compileSelector } from '../../core/scheduling/selectors';
import { NamespaceIndex } from '../../core/scheduling/namespaces';
import { namespaceFromKube } from '../../core/model/from-kube';
import type { KubeStore } from '../kube/store';
import type { KubeObject } from '../kube/types';
import { hostIpOf, isDaemonSetPod, isLivePod, kubeTypes, podNodeName, withCondition, type KubeTypes } from './kube-objects';
import { Domains, type NodeState } from './domains';
import { FitPass, nodeAffinityOk, reasonsText, score } from './fit-cache';
import { runningStatus } from './pod-content';
import { podVolumes } from './attach-detach';
import { schedulingModel } from './volume-zones';
import { place, unplace } from './bound-pods';
import { passNodes, touchNodes } from './node-cache';

export interface SchedulerResult {
  bound: { pod: string; node: string }[];
  /** The pods tried in this pass that fit nowhere (pods waiting out their backoff are not tried). */
  unschedulable: string[];
  /** When the next pod waiting out its backoff becomes due. */
  retryAt?: number;
}

/** This pass's namespaces: what a term's namespaceSelector reaches (the store's Namespaces and the pods' own). */
let namespaceIndex = new NamespaceIndex();
let reached = new WeakMap<PodAffinityTerm, ReadonlySet<string> | 'all'>();

function inTermNamespaces(term: PodAffinityTerm, owner: Pod, other: Pod): boolean {
  if (!term.namespaceSelector) return term.namespaces?.length ? term.namespaces.includes(other.namespace) : other.namespace === owner.namespace;
  let r = reached.get(term);
  if (!r) reached.set(term, (r = namespaceIndex.termNamespaces(owner.namespace, term)));
  return r === 'all' || r.has(other.namespace);
}

const termMatches = (term: PodAffinityTerm, owner: Pod, other: Pod): boolean =>
  inTermNamespaces(term, owner, other) && compileSelector(term.labelSelector)(other.labels);

/** Whether a pod matching each of the pod's required affinity terms is bound anywhere (asked once per pending pod, when first needed). */
function affinityAnywhere(pod: Pod, all: NodeState[]): (i: number) => boolean {
  const known: boolean[] = [];
  const terms = pod.affinity?.podAffinity?.required ?? [];
  return (i) => (known[i] ??= all.some((o) => o.pods.some((p) => termMatches(terms[i], pod, p))));
}

function podAffinityOk(pod: Pod, n: NodeState, anywhere: (i: number) => boolean, domains: Domains): boolean {
  for (const term of pod.affinity?.podAntiAffinity?.required ?? []) {
    if (domains.podsIn(term.topologyKey, n).some((o) => termMatches(term, pod, o))) return false;
  }
  // Existing pods' anti-affinity applies symmetrically.
  for (const { term, owner } of domains.antiTermsAt(n)) if (termMatches(term, owner, pod)) return false;
  const terms = pod.affinity?.podAffinity?.required ?? [];
  for (let i = 0; i < terms.length; i++) {
    if (anywhere(i) && !domains.podsIn(terms[i].topologyKey, n).some((o) => termMatches(terms[i], pod, o))) return false;
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

/** Whether where other pods are bound can rule a node out for the pod: its own pod (anti-)affinity or spread, or any bound pod's anti-affinity. */
const boundPodsMatter = (pod: Pod, domains: Domains): boolean =>
  domains.hasAntiTerms() ||
  (pod.affinity?.podAntiAffinity?.required?.length ?? 0) > 0 ||
  (pod.affinity?.podAffinity?.required?.length ?? 0) > 0 ||
  pod.topologySpreadConstraints.some((c) => c.whenUnsatisfiable === 'DoNotSchedule');

/**
 * The highest-scoring node that can take the pod (the first by name on a tie), or why none can (each misfit reason
 * with its count, in node-name order of first occurrence). A node is ruled out by the first of: not ready,
 * unschedulable, an untolerated taint, node affinity, resources, pod (anti-)affinity, topology spread.
 */
function bestNode(pod: Pod, fit: FitPass, all: NodeState[], domains: Domains): NodeState | string {
  const shape = fit.shapeOf(pod);
  if (!boundPodsMatter(pod, domains)) return shape.best() ?? shape.reasons();
  const reasons = new Map<string, number>();
  const spread = spreadCounts(pod, all);
  const anywhere = affinityAnywhere(pod, all);
  let best: NodeState | undefined;
  let bestScore = -Infinity;
  for (const n of fit.sorted) {
    const why =
      shape.why[n.index] ??
      (!podAffinityOk(pod, n, anywhere, domains)
        ? "node(s) didn't match pod affinity/anti-affinity rules"
        : !spreadOk(pod, n, spread)
          ? "node(s) didn't match pod topology spread constraints"
          : undefined);
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
  return best ?? reasonsText(reasons);
}

type PodStatus = { conditions?: Record<string, unknown>[] };

/** Binds the pod to the node (spec.nodeName), then the node's kubelet runs it: Running, Ready, with the status a kubelet writes. */
function bindPod(store: KubeStore, types: KubeTypes, obj: KubeObject, pod: Pod, node: NodeState, status: PodStatus, nowIso: string): void {
  // The store copies what it is given: the stored object is read here, never changed.
  const next = { ...obj, spec: { ...(obj.spec ?? {}), nodeName: node.node.name } };
  const bound = store.update(types.pod, pod.namespace, pod.name, next, { manager: 'kube-scheduler', readOnly: true });
  const hostIp = hostIpOf(node.obj);
  // A pod whose volumes must be attached first is ContainerCreating until the attach/detach controller has them there.
  const nextStatus = podVolumes(store, bound).length
    ? { ...status, phase: 'Pending', conditions: withCondition(status.conditions, { type: 'PodScheduled', status: 'True' }, nowIso) }
    : runningStatus(bound, hostIp, nowIso, status);
  store.update(types.pod, pod.namespace, pod.name, { ...bound, status: nextStatus }, { subresource: 'status', manager: 'kubelet', readOnly: true });
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
        ...obj,
        status: {
          ...status,
          phase: 'Pending',
          conditions: withCondition(status.conditions, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, nowIso),
        },
      },
      { subresource: 'status', manager: 'kube-scheduler', readOnly: true },
    );
  }
}

/** Whether a pod is waiting for the scheduler: live, not being deleted, unbound, not a DaemonSet's. */
const isPending = (obj: KubeObject): boolean => isLivePod(obj) && !obj.metadata.deletionTimestamp && !podNodeName(obj) && !isDaemonSetPod(obj);

/**
 * kube-scheduler's queue, per store: a pod that did not fit waits out its backoff (1 s, doubling to 10 s:
 * podInitialBackoffSeconds, podMaxBackoffSeconds) and is tried again only after a pod or node was written outside
 * a pass (a cluster event that may make it fit), or after 5 minutes in any case (podMaxInUnschedulablePodsDuration).
 * A new pending pod is tried at the next pass. `gen` counts the cluster events.
 */
interface Queue {
  gen: number;
  inPass: boolean;
  /** By pod uid: its failed attempts, the last one's time and the cluster event count then. */
  tried: Map<string, { attempts: number; at: number; gen: number }>;
}

const queues = new WeakMap<KubeStore, Queue>();
const BACKOFF = { initialMs: 1_000, maxMs: 10_000, flushMs: 300_000 } as const;

function queueOf(store: KubeStore): Queue {
  let q = queues.get(store);
  if (!q) {
    const state: Queue = (q = { gen: 0, inPass: false, tried: new Map() });
    queues.set(store, state);
    store.onChangeFirst((e) => {
      const r = e.resource;
      if (!state.inPass && r.group === '' && (r.resource === 'pods' || r.resource === 'nodes')) state.gen++;
    });
  }
  return q;
}

/** When a pod that did not fit may be tried again. */
function dueAt(q: Queue, t: { attempts: number; at: number; gen: number }): number {
  return t.gen < q.gen ? t.at + Math.min(BACKOFF.initialMs * 2 ** (t.attempts - 1), BACKOFF.maxMs) : t.at + BACKOFF.flushMs;
}

/** A pass that binds and marks nothing (fresh arrays: a caller may add to them). */
const nothing = (retryAt?: number): SchedulerResult => ({ bound: [], unschedulable: [], ...(retryAt === undefined ? {} : { retryAt }) });

/**
 * One scheduling pass over the pods that are due (new, or past their backoff after a cluster event). `retryAt`: when
 * the next pod left waiting becomes due, if any (the caller runs a pass then).
 */
export function runScheduler(store: KubeStore): SchedulerResult {
  const types = kubeTypes(store);
  const namespaceType = store.typeOf('v1', 'Namespace');
  namespaceIndex = new NamespaceIndex(
    () => [...store.scan(namespaceType)].map((o) => namespaceFromKube(o)),
    () => [...store.scan(types.pod)].map((o) => String(o.metadata.namespace ?? 'default')),
  );
  reached = new WeakMap();
  const q = queueOf(store);
  const now = store.now();
  const pending: KubeObject[] = [];
  const nominated: KubeObject[] = [];
  const waiting = new Set<string>();
  let retryAt: number | undefined;
  for (const obj of store.scanWhere(types.pod, ['spec', 'nodeName'], '')) {
    if (!isPending(obj)) continue;
    if ((obj.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName) nominated.push(obj);
    const uid = obj.metadata.uid as string;
    const t = q.tried.get(uid);
    const due = t ? dueAt(q, t) : now;
    if (due <= now) pending.push(obj);
    else {
      waiting.add(uid);
      retryAt = Math.min(retryAt ?? Infinity, due);
    }
  }
  // Pods bound, deleted or no longer pending leave the queue.
  for (const uid of q.tried.keys()) if (!waiting.has(uid)) q.tried.delete(uid);
  if (pending.length === 0) return nothing(retryAt);
  q.inPass = true;
  try {
    const out = schedule(store, types, pending, nominated);
    const failed = new Set(out.unschedulable);
    for (const obj of pending) {
      const uid = obj.metadata.uid as string;
      if (failed.has(`${obj.metadata.namespace}/${obj.metadata.name}`))
        q.tried.set(uid, { attempts: (q.tried.get(uid)?.attempts ?? 0) + 1, at: now, gen: q.gen });
    }
    // A pod bound in this pass may be what a pod left pending requires (pod affinity): a cluster event for the others.
    if (out.bound.length > 0) q.gen++;
    for (const obj of pending) {
      const t = q.tried.get(obj.metadata.uid as string);
      if (t) retryAt = Math.min(retryAt ?? Infinity, dueAt(q, t));
    }
    return retryAt === undefined ? out : { ...out, retryAt };
  } finally {
    q.inPass = false;
  }
}

/**
 * The room of the pending pods nominated to a node (status.nominatedNodeName), held there: kube-scheduler adds them
 * to the node when it checks another pod against it (RunFilterPluginsWithNominatedPods; here for resources and
 * pod slots, whatever the pods' priorities), until each is tried itself. Returns the node each is held on.
 */
function holdNominated(store: KubeStore, nodes: NodeState[], fit: FitPass, nominated: KubeObject[], copy: (n: NodeState) => void): Map<Pod, NodeState> {
  const held = new Map<Pod, NodeState>();
  if (nominated.length === 0) return held;
  const byName = new Map(nodes.map((n) => [n.node.name, n]));
  for (const obj of nominated) {
    const n = byName.get((obj.status as { nominatedNodeName: string }).nominatedNodeName);
    if (!n) continue;
    const pod = schedulingModel(store, obj);
    copy(n);
    place(n, pod);
    fit.nodeChanged(n);
    held.set(pod, n);
  }
  // The held room is this pass's: the next one reads those nodes again.
  touchNodes(store, new Set([...held.values()].map((n) => n.node.name)));
  return held;
}

/** A nominated pod on its node, when it fits there now (kube-scheduler tries the nominated node first: PreferNominatedNode). */
function onNominated(pod: Pod, n: NodeState | undefined, fit: FitPass, all: NodeState[], domains: Domains): NodeState | undefined {
  if (!n) return undefined;
  if (fit.shapeOf(pod).why[n.index] !== undefined) return undefined;
  if (!boundPodsMatter(pod, domains)) return n;
  return podAffinityOk(pod, n, affinityAnywhere(pod, all), domains) && spreadOk(pod, n, spreadCounts(pod, all)) ? n : undefined;
}

function schedule(store: KubeStore, types: KubeTypes, due: KubeObject[], nominated: KubeObject[] = []): SchedulerResult {
  const nowIso = store.timestamp();
  // What each node holds, kept across passes from the store's writes (pods bound to a node that is gone count nowhere).
  const { sorted: nodes, fit } = passNodes(store);
  const pending = due.map((obj) => ({ obj, pod: schedulingModel(store, obj) }));
  pending.sort(
    (a, b) =>
      b.pod.priority - a.pod.priority ||
      a.pod.creationTimestamp - b.pod.creationTimestamp ||
      `${a.pod.namespace}/${a.pod.name}`.localeCompare(`${b.pod.namespace}/${b.pod.name}`),
  );
  const out: SchedulerResult = { bound: [], unschedulable: [] };
  const copied = new Set<NodeState>();
  // The bound-pod cache's arrays are shared with later passes: the first change on a node copies them.
  const copy = (n: NodeState) => {
    if (copied.has(n)) return;
    copied.add(n);
    n.pods = n.pods.slice();
    n.used = { ...n.used };
  };
  const held = holdNominated(store, nodes, fit, nominated, copy);
  const domains = new Domains(nodes, held);
  for (const { obj, pod } of pending) {
    const heldOn = held.get(pod);
    if (heldOn) {
      unplace(heldOn, pod);
      fit.nodeChanged(heldOn);
      held.delete(pod);
    }
    const best = onNominated(pod, heldOn, fit, nodes, domains) ?? bestNode(pod, fit, nodes, domains);
    const key = `${pod.namespace}/${pod.name}`;
    const status = (obj.status ?? {}) as PodStatus;
    if (typeof best === 'object') {
      copy(best);
      place(best, pod);
      fit.nodeChanged(best);
      domains.placed(best, pod);
      bindPod(store, types, obj, pod, best, status, nowIso);
      out.bound.push({ pod: key, node: best.node.name });
    } else {
      const message = `0/${nodes.length} nodes are available: ${best}.`;
      markUnschedulable(store, types, obj, pod, message, status, nowIso);
      out.unschedulable.push(key);
    }
  }
  return out;
}
