/**
 * Per-pod scheduling state: requirements derived from nodeSelector, node affinity and volumes, the
 * preferences still treated as required, and relaxation in Karpenter's order (docs/karpenter-reference.md §2.4–2.5).
 */
import type { NodeSelectorTerm, Pod, PreferredSchedulingTerm, Taint, Toleration, TopologySpreadConstraint, WeightedPodAffinityTerm } from '../model/kube';
import { NormalizedLabels } from '../model/labels';
import type { ResourceList } from '../model/resources';
import { Requirement, Requirements } from './requirements';
import type { PodVolume } from './volumes';
import type { Dims } from './dims';
import type { OwnedGroups, Topology } from './topology';

export interface PodState {
  pod: Pod;
  /** The pod's requests plus one `pods` slot. */
  req: ResourceList;
  /** The same as a vector over the solve's Dims, and its non-zero indices (set by the solver). */
  reqVec: Float64Array;
  reqNz: number[];
  /** Index in the original input, for stable ordering. */
  index: number;
  requiredTerms: NodeSelectorTerm[];
  preferredNode: PreferredSchedulingTerm[];
  preferredAffinity: WeightedPodAffinityTerm[];
  preferredAntiAffinity: WeightedPodAffinityTerm[];
  scheduleAnyway: TopologySpreadConstraint[];
  tolerations: Toleration[];
  /** CSI volumes the pod attaches (for per-type attach limits; set by the solver). */
  volumes: PodVolume[];
  /** Volume topology alternatives from bound PVs / WaitForFirstConsumer classes (one must hold; [] = none). */
  volumeAlternatives: Requirements[];
  /** nodeSelector + first required term + heaviest preferred node term (volumes are separate). */
  requirements: Requirements;
  /** Same without preferences (used for topology domains). */
  strictRequirements: Requirements;
  /** Bumped on every relaxation. */
  version: number;
  relaxations: string[];
  /** The topology groups this state owns, as a Topology worked them out for one version (Topology.ownedGroups). */
  owned: { topology: Topology; version: number; groups: OwnedGroups } | undefined;
}

/** A pod's state with its requests as a vector over a solve's Dims (what the scheduler's checks read). */
export function podStateIn(pod: Pod, index: number, volumeAlternatives: Requirements[], ignorePreferences: boolean, dims: Dims): PodState {
  const st = newPodState(pod, index, volumeAlternatives, ignorePreferences);
  ({ vec: st.reqVec, nz: st.reqNz } = dims.request(st.req));
  return st;
}

/** A copy of a pod's state with its requests as a vector over `dims`. */
export function withVector(st: PodState, dims: Dims): PodState {
  const { vec, nz } = dims.request(st.req);
  return { ...st, reqVec: vec, reqNz: nz };
}

const byWeightDesc = <T extends { weight: number }>(a: T, b: T) => b.weight - a.weight;

/**
 * The empty list every pod state (and its owned topology groups) shares where it has no such terms — most pods
 * have no preferences. The scheduler replaces these lists, never changes them in place (relaxations, which are
 * pushed to, get their own); frozen, so a write would throw.
 */
export const NONE: never[] = [];
Object.freeze(NONE);
const copyOf = <T>(xs: readonly T[] | undefined): T[] => (xs && xs.length > 0 ? [...xs] : NONE);
const byWeight = <T extends { weight: number }>(xs: readonly T[] | undefined): T[] => (xs && xs.length > 0 ? [...xs].sort(byWeightDesc) : NONE);

export function newPodState(pod: Pod, index: number, volumeAlternatives: Requirements[], ignorePreferences: boolean): PodState {
  const na = pod.affinity?.nodeAffinity;
  const state: PodState = {
    pod,
    req: { ...pod.requests, pods: 1 },
    reqVec: NO_VECTOR,
    reqNz: NONE,
    index,
    requiredTerms: copyOf(na?.required),
    preferredNode: ignorePreferences ? NONE : byWeight(na?.preferred),
    preferredAffinity: ignorePreferences ? NONE : byWeight(pod.affinity?.podAffinity?.preferred),
    preferredAntiAffinity: ignorePreferences ? NONE : byWeight(pod.affinity?.podAntiAffinity?.preferred),
    scheduleAnyway:
      ignorePreferences || pod.topologySpreadConstraints.length === 0
        ? NONE
        : pod.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway'),
    tolerations: pod.tolerations,
    volumeAlternatives,
    volumes: NONE,
    requirements: EMPTY_REQUIREMENTS,
    strictRequirements: EMPTY_REQUIREMENTS,
    version: 0,
    relaxations: NONE,
    owned: undefined,
  };
  recompute(state);
  return state;
}

// Placeholders newPodState replaces at once (recompute; the solver's Dims): never read, never written.
const NO_VECTOR = new Float64Array(0);
const EMPTY_REQUIREMENTS = new Requirements();

function addTerm(into: Requirements, term: NodeSelectorTerm | undefined): void {
  const exprs = term?.matchExpressions;
  if (exprs) for (let i = 0; i < exprs.length; i++) into.addInPlace(Requirement.from(exprs[i]));
}

function recompute(s: PodState): void {
  const strict = new Requirements();
  const selector = s.pod.nodeSelector;
  for (const k in selector) strict.addInPlace(Requirement.in(NormalizedLabels[k] ?? k, [selector[k]]));
  addTerm(strict, s.requiredTerms[0]);
  s.strictRequirements = strict;
  if (s.preferredNode.length > 0) {
    const withPref = strict.clone();
    addTerm(withPref, s.preferredNode[0].preference);
    s.requirements = withPref;
  } else {
    s.requirements = strict;
  }
}

/** An active topology spread constraint: DoNotSchedule, or ScheduleAnyway not yet relaxed. */
export function isActiveSpread(s: PodState, c: TopologySpreadConstraint): boolean {
  return c.whenUnsatisfiable === 'DoNotSchedule' || s.scheduleAnyway.includes(c);
}

/**
 * Relaxes one preference, in Karpenter's order. Returns a description of what was relaxed, or undefined
 * when nothing is left to relax.
 */
export function relax(s: PodState, poolTaints: readonly Taint[][]): string | undefined {
  let what: string | undefined;
  if (s.requiredTerms.length > 1) {
    s.requiredTerms = s.requiredTerms.slice(1);
    what = 'removed required node affinity term';
  } else if (s.preferredAffinity.length > 0) {
    s.preferredAffinity = s.preferredAffinity.slice(1);
    what = 'removed preferred pod affinity term';
  } else if (s.preferredAntiAffinity.length > 0) {
    s.preferredAntiAffinity = s.preferredAntiAffinity.slice(1);
    what = 'removed preferred pod anti-affinity term';
  } else if (s.preferredNode.length > 0) {
    s.preferredNode = s.preferredNode.slice(1);
    what = 'removed preferred node affinity term';
  } else if (s.scheduleAnyway.length > 0) {
    s.scheduleAnyway = s.scheduleAnyway.slice(1);
    what = 'removed ScheduleAnyway topology spread constraint';
  } else if (
    !s.tolerations.some((t) => t.operator === 'Exists' && !t.key && t.effect === 'PreferNoSchedule') &&
    poolTaints.some((ts) => ts.some((t) => t.effect === 'PreferNoSchedule'))
  ) {
    s.tolerations = [...s.tolerations, { operator: 'Exists', effect: 'PreferNoSchedule' }];
    what = 'tolerated PreferNoSchedule taints';
  }
  if (what) {
    s.version++;
    s.relaxations = [...s.relaxations, what];
    recompute(s);
  }
  return what;
}

/** Effective CPU and memory for the queue order. */
export function compareForQueue(a: PodState, b: PodState): number {
  const ca = a.pod.requests.cpu ?? 0;
  const cb = b.pod.requests.cpu ?? 0;
  if (ca !== cb) return cb - ca;
  const ma = a.pod.requests.memory ?? 0;
  const mb = b.pod.requests.memory ?? 0;
  if (ma !== mb) return mb - ma;
  if (a.pod.creationTimestamp !== b.pod.creationTimestamp) return a.pod.creationTimestamp - b.pod.creationTimestamp;
  return a.pod.uid < b.pod.uid ? -1 : a.pod.uid > b.pod.uid ? 1 : 0;
}
