/**
 * Pod-level checks for disruption (docs/karpenter-reference.md §4.2): do-not-disrupt, PodDisruptionBudgets, disruption cost,
 * and nodewright's PDB deadlock check (a PDB that can never allow an eviction under the current replicas).
 */
import { parseDuration } from '../model/duration';
import type { Pod, PodDisruptionBudget } from '../model/kube';
import { podKey } from '../model/kube';
import { Annotation } from '../model/labels';
import { compileSelector } from '../scheduling/selectors';
import { addSeconds, toSeconds, type EpochMs } from '../time';

const isTerminal = (p: Pod) => p.phase === 'Succeeded' || p.phase === 'Failed';
const isStatic = (p: Pod) => p.owner?.kind === 'Node';
const isDaemon = (p: Pod) => p.owner?.kind === 'DaemonSet';
/** Pods that can block a disruption: not terminal, not terminating, not static (docs/karpenter-reference.md §4.2). */
export const isActive = (p: Pod) => !isTerminal(p) && p.deletionTimestamp === undefined && !isStatic(p);

/** Pods that must be rescheduled when the node goes: a terminating StatefulSet pod still counts (§4.3). */
export function isReschedulable(p: Pod): boolean {
  if (isTerminal(p) || isStatic(p) || isDaemon(p)) return false;
  return p.deletionTimestamp === undefined || p.owner?.kind === 'StatefulSet';
}

/** Why the pod's do-not-disrupt annotation blocks now, or undefined ("true", or a duration from pod start). */
function doNotDisruptBlock(p: Pod, nowMs: EpochMs): string | undefined {
  // The pre-v1 alias: karpenter.sh/do-not-evict: "true" blocked voluntary disruption of the pod's node the same way.
  if (p.annotations[Annotation.doNotEvict] === 'true' && p.annotations[Annotation.doNotDisrupt] !== 'true') {
    return `pod ${podKey(p)} has ${Annotation.doNotEvict}: "true" (deprecated alias of ${Annotation.doNotDisrupt})`;
  }
  const v = p.annotations[Annotation.doNotDisrupt];
  if (v === undefined) return undefined;
  if (v === 'true') return `pod ${podKey(p)} has ${Annotation.doNotDisrupt}: "true"`;
  let seconds: number;
  try {
    seconds = parseDuration(v);
  } catch {
    return undefined;
  } // an invalid value is ignored
  const start = p.startTime ?? p.creationTimestamp;
  const until = addSeconds(start, seconds);
  if (nowMs < until) return `pod ${podKey(p)} has ${Annotation.doNotDisrupt}: "${v}" (active until ${new Date(until).toISOString()})`;
  return undefined;
}

/** Karpenter's IsDoNotDisruptActive: "true", or a duration not yet elapsed since the pod started (the drain waits for it). */
export const doNotDisruptActive = (p: Pod, nowMs: EpochMs): boolean => doNotDisruptBlock(p, nowMs) !== undefined;

function scaled(v: number | string, total: number): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v.trim());
  if (m) return Math.ceil((total * Number(m[1])) / 100);
  return /^\d+$/.test(v.trim()) ? Number(v) : undefined;
}

export interface PdbState {
  pdb: PodDisruptionBudget;
  key: string;
  /** Evictions the PDB allows now (status, else computed from the pods it selects). */
  allowed: number;
  /** Set when no eviction can ever succeed with the current replicas, even with every pod healthy. */
  deadlock?: string;
}

/** PDB states and a pod → PDBs index over the snapshot's pods. */
export class PdbIndex {
  private readonly byPod = new Map<string, PdbState[]>();
  constructor(pdbs: PodDisruptionBudget[], pods: Pod[]) {
    for (const pdb of pdbs) {
      const match = compileSelector(pdb.selector);
      const selected = pods.filter((p) => p.namespace === pdb.namespace && !isTerminal(p) && match(p.labels));
      const expected = selected.length;
      const healthy = selected.filter((p) => p.deletionTimestamp === undefined && p.phase === 'Running' && p.ready !== false).length;
      let desired = 0;
      let rule = '';
      if (pdb.maxUnavailable !== undefined) {
        const mu = scaled(pdb.maxUnavailable, expected) ?? 0;
        desired = expected - mu;
        rule = `maxUnavailable ${pdb.maxUnavailable}`;
      } else if (pdb.minAvailable !== undefined) {
        desired = scaled(pdb.minAvailable, expected) ?? expected;
        rule = `minAvailable ${pdb.minAvailable}`;
      }
      const key = podKey(pdb);
      const state: PdbState = { pdb, key, allowed: pdb.disruptionsAllowed ?? Math.max(0, healthy - desired) };
      if (rule && expected > 0 && desired >= expected) {
        state.deadlock = `PDB deadlock: pdb ${key} (${rule}) can never allow an eviction with ${expected} selected pod(s), even when all are healthy`;
      }
      for (const p of selected) {
        const l = this.byPod.get(p.uid);
        if (l) l.push(state);
        else this.byPod.set(p.uid, [state]);
      }
    }
  }
  of(p: Pod): PdbState[] {
    return this.byPod.get(p.uid) ?? [];
  }
}

export interface PodBlock {
  why: string;
  deadlock: boolean;
  kind: 'do-not-disrupt' | 'pdb';
}

/** The first reason these pods block a disruption, or undefined. */
export function podsBlock(pods: Pod[], pdbs: PdbIndex, nowMs: EpochMs): PodBlock | undefined {
  for (const p of pods) {
    if (!isActive(p)) continue;
    const dnd = doNotDisruptBlock(p, nowMs);
    if (dnd) return { why: dnd, deadlock: false, kind: 'do-not-disrupt' };
  }
  // A deadlock is reported before a transient zero so the audit says the node can never be drained.
  let transient: PodBlock | undefined;
  for (const p of pods) {
    if (!isActive(p)) continue;
    const states = pdbs.of(p);
    if (states.length > 1) {
      return {
        why: `PDB deadlock: pod ${podKey(p)} is selected by multiple PDBs (${states.map((s) => s.key).join(', ')}), so the eviction API always refuses it`,
        deadlock: true,
        kind: 'pdb',
      };
    }
    const s = states[0];
    if (!s || s.allowed > 0) continue;
    if (s.deadlock) return { why: `${s.deadlock} (blocks pod ${podKey(p)})`, deadlock: true, kind: 'pdb' };
    transient ??= { why: `pdb ${s.key} allows 0 disruptions now (blocks pod ${podKey(p)})`, deadlock: false, kind: 'pdb' };
  }
  return transient;
}

/** True when the pod's pod-deletion-cost is the one nodewright last wrote (PodDeletionCostManagement), so it may change it. */
export const managedDeletionCost = (p: Pick<Pod, 'annotations'>): boolean =>
  p.annotations[Annotation.managedDeletionCost] === 'true' &&
  p.annotations[Annotation.podDeletionCost] !== undefined &&
  p.annotations[Annotation.podDeletionCost] === p.annotations[Annotation.lastAssignedDeletionCost];

/**
 * Karpenter's per-pod eviction cost: clamp(1 + deletionCost/2^27 + priority/2^25, −10, 10). deletionCost is the
 * user's `karpenter.sh/disruption-cost`, else the pod's pod-deletion-cost unless nodewright wrote it
 * (PodDeletionCostManagement: a rank steering scale-down, not a cost the user gave).
 */
export function podCost(p: Pod): number {
  const own = p.annotations[Annotation.disruptionCost];
  const raw = Number(own ?? (managedDeletionCost(p) ? 0 : (p.annotations[Annotation.podDeletionCost] ?? 0)));
  const deletionCost = Number.isFinite(raw) ? raw : 0;
  return Math.min(10, Math.max(-10, 1 + deletionCost / 2 ** 27 + p.priority / 2 ** 25));
}

/** Σ pod costs × fraction of lifetime left before expireAfter (docs/karpenter-reference.md §4.2). */
export function disruptionCost(pods: Pod[], created: EpochMs, expireAfterSeconds: number | null, nowMs: EpochMs): number {
  const sum = pods.reduce((s, p) => s + podCost(p), 0);
  if (expireAfterSeconds === null || expireAfterSeconds <= 0) return sum;
  const left = (toSeconds(created) + expireAfterSeconds - toSeconds(nowMs)) / expireAfterSeconds;
  return sum * Math.min(1, Math.max(0, left));
}
