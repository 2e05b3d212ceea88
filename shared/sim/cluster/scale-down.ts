/**
 * Which pods a ReplicaSet deletes first when it has too many: kube-controller-manager's order
 * (`controller.ActivePodsWithRanks`, sorted by `getPodsToDelete` in pkg/controller/replicaset), with the
 * PodDeletionCost and LogarithmicScaleDown features on (their defaults since 1.22). Rules in turn, first = deleted first:
 * 1. not assigned to a node; 2. phase Pending, Unknown, Running; 3. not Ready; 4. lower
 * `controller.kubernetes.io/pod-deletion-cost`; 5. higher rank (related pods on the same node); 6. both Ready: Ready
 * for less time, by log2 buckets of the time (same bucket: lower UID); 7. more container restarts; 8. newer, by log2
 * buckets of the age (same bucket: lower UID). Pods still equal (created in the same second) go in no set order in
 * kube (its sort is not stable). kube's UIDs are random, so "lower UID" is an arbitrary order: the simulator, whose
 * UIDs count up, compares hashes of them, so ties scatter as they do on a real cluster instead of following creation.
 */
import type { KubeObject } from '../kube/types';
import { hashHex } from '../hash';
import { isActivePod as isActive, podNodeName } from './kube-objects';

const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** podPhaseToOrdinal: any other phase (or none) counts as Pending. */
const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * The pod's deletion cost as kube reads the annotation: an int32 written in plain decimal (no `+`, no leading
 * zero); missing or invalid is 0.
 */
export function deletionCost(p: KubeObject): number {
  const v = p.metadata.annotations?.[DELETION_COST];
  if (v === undefined || !/^(-\d+|0|[1-9]\d*)$/.test(v)) return 0;
  const n = Number(v);
  return n >= -(2 ** 31) && n <= 2 ** 31 - 1 ? n : 0;
}

/** What the comparison reads of a pod, read once. */
interface Ranked {
  pod: KubeObject;
  name: string;
  uid: string;
  /**
   * What comparing UIDs amounts to: kube's are random (v4), so pods that tie on everything else go in no particular
   * order; the simulator's count up, so the comparison is on a hash of them, not on creation order.
   */
  uidKey: string;
  node: string;
  phase: number;
  ready: boolean;
  cost: number;
  rank: number;
  /** When it became Ready (ms), when Ready; undefined otherwise (kube's zero time). */
  readyAt: number | undefined;
  restarts: number;
  createdAt: number | undefined;
}

const time = (iso: unknown): number | undefined => {
  const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
};

function ranked(p: KubeObject, podsOnNode: Map<string, number>): Ranked {
  const status = (p.status ?? {}) as {
    phase?: string;
    conditions?: { type?: string; status?: string; lastTransitionTime?: string }[];
    containerStatuses?: { restartCount?: number }[];
  };
  const readyCondition = (status.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'True');
  const node = podNodeName(p) ?? '';
  return {
    pod: p,
    name: p.metadata.name ?? '',
    uid: p.metadata.uid ?? '',
    uidKey: hashHex('uid', p.metadata.uid ?? ''),
    node,
    phase: PHASE_ORDINAL[status.phase ?? ''] ?? 0,
    ready: readyCondition !== undefined,
    cost: deletionCost(p),
    rank: podsOnNode.get(node) ?? 0,
    readyAt: time(readyCondition?.lastTransitionTime),
    restarts: Math.max(0, ...(status.containerStatuses ?? []).map((c) => Number(c.restartCount ?? 0))),
    createdAt: time(p.metadata.creationTimestamp),
  };
}

/** floor(log2) of the time since `t` in nanoseconds (kube's Duration), -1 when not in the past. */
const bucket = (t: number, nowMs: number): number => {
  const ns = Math.round((nowMs - t) * 1e6);
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
};

const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Rules 6 and 8: the later time first (a zero time before any), or with LogarithmicScaleDown the shorter log2
 * bucket first, and in the same bucket the lower UID. Undefined when the times are equal (the next rule decides).
 */
function byTime(a: Ranked, b: Ranked, ta: number | undefined, tb: number | undefined, nowMs: number): number | undefined {
  if (ta === tb) return undefined;
  if (ta === undefined || tb === undefined) return ta === undefined ? -1 : 1;
  const diff = bucket(ta, nowMs) - bucket(tb, nowMs);
  if (diff !== 0) return diff;
  return a.uid === b.uid ? undefined : order(a.uidKey, b.uidKey);
}

function compare(a: Ranked, b: Ranked, nowMs: number): number {
  if (a.node !== b.node && (a.node === '' || b.node === '')) return a.node === '' ? -1 : 1;
  if (a.phase !== b.phase) return a.phase - b.phase;
  if (a.ready !== b.ready) return a.ready ? 1 : -1;
  if (a.cost !== b.cost) return a.cost - b.cost;
  if (a.rank !== b.rank) return b.rank - a.rank;
  const ready = a.ready && b.ready ? byTime(a, b, a.readyAt, b.readyAt, nowMs) : undefined;
  if (ready !== undefined) return ready;
  if (a.restarts !== b.restarts) return b.restarts - a.restarts;
  // Created in the same second: kube leaves them in no set order; here an arbitrary but fixed one (the UIDs' hashes).
  return byTime(a, b, a.createdAt, b.createdAt, nowMs) ?? (order(a.uidKey, b.uidKey) || order(a.name, b.name));
}

/**
 * `pods` in the order a ReplicaSet deletes them (first = deleted first). A pod's rank is the number of active
 * `related` pods (those of all the Deployment's ReplicaSets) on its node; `nowMs` is the controller's clock.
 */
export function deletionOrder(pods: readonly KubeObject[], related: readonly KubeObject[], nowMs: number): KubeObject[] {
  const podsOnNode = new Map<string, number>();
  for (const p of related) {
    if (!isActive(p)) continue;
    const node = podNodeName(p) ?? '';
    podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
  }
  return pods
    .map((p) => ranked(p, podsOnNode))
    .sort((a, b) => compare(a, b, nowMs))
    .map((r) => r.pod);
}
