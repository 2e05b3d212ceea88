/**
 * A solve's working state (SolveRun) and how it is prepared: the dimensions, the NodePools' templates, the pods
 * to schedule (and those Karpenter ignores), existing nodes, topology and pool limits. solve.ts places pods on it.
 */
import { namespaceIndexOf } from './namespaces';
import { Label } from '../model/labels';
import type { NodePool } from '../model/karpenter';
import type { Pod } from '../model/kube';
import type { ResourceList } from '../model/resources';
import { Dims } from './dims';
import type { ExistingNodeState } from './existing-node';
import { existingStates, hasRequiredAnti, roomOf } from './existing-model';
import type { InProgressClaim } from './nodeclaim';
import { podStateIn, type PodState } from './pod-data';
import { isStatic } from './static-claim';
import { buildTemplate, type Template } from './template';
import { Topology, type TopologyGroup } from './topology';
import type { SchedulingInput, SchedulingOptions, UnschedulablePod } from './types';
import { podVolumes, volumeIndex, volumeRequirements, type VolumeIndex } from './volumes';

/** Why Karpenter would not consider the pod at all (docs/karpenter-reference.md §2.1), or undefined. */
function ignoreReason(pod: Pod): string | undefined {
  const terms = pod.affinity?.nodeAffinity?.required ?? [];
  if (terms.some((t) => (t.matchFields?.length ?? 0) > 0)) return 'node affinity uses matchFields, which is not supported';
  const requiresNoPool = (reqs: { key: string; operator: string }[]) => reqs.some((r) => r.key === Label.nodePool && r.operator === 'DoesNotExist');
  if (terms.length > 0 && terms.every((t) => requiresNoPool(t.matchExpressions))) return 'pod requires karpenter.sh/nodepool DoesNotExist';
  return undefined;
}

interface Limits {
  remaining: ResourceList;
}

/** The claims whose hostname count in `g` is still within `threshold` (see claimCandidates in solve.ts). */
export interface HostIndex {
  g: TopologyGroup;
  threshold: number;
  claims: Set<InProgressClaim>;
}

/** One solve's working state: built by prepare(), changed as pods are placed. */
export interface SolveRun {
  readonly input: SchedulingInput;
  readonly dims: Dims;
  readonly minValuesPolicy: NonNullable<SchedulingOptions['minValuesPolicy']>;
  /** The NodePools new claims may come from, in weight order, and the templates of those with instance types. */
  readonly pools: NodePool[];
  readonly templates: Template[];
  readonly emptyPools: string[];
  readonly existing: ExistingNodeState[];
  /** Per dimension, at least the most room any existing node has left (only ever shrinks). */
  existingRoom: Float64Array;
  /**
   * Per request vector (one per distinct request, Dims.request) and pod shape (solve.ts skipLinks): the existing nodes
   * known not to take such a pod, as "next node to look at" links (existing.length ends them). Nodes only fill up, so a
   * scan for the same shape skips them wherever they are, not only at the front.
   */
  readonly existingSkip: Map<Float64Array, Map<string, Int32Array>>;
  readonly topology: Topology;
  readonly limits: Map<string, Limits>;
  /** Claims opened in this run, kept in claimOrder (solve.ts); each knows its position (`pos`). */
  readonly claims: InProgressClaim[];
  hostnameSeq: number;
  readonly hostIndex: Map<string, HostIndex>;
}

/** Templates, pod states, existing nodes, topology and pool limits for one solve. */
export function prepare(input: SchedulingInput): { run: SolveRun; states: PodState[]; ignored: UnschedulablePod[] } {
  const opts = input.options ?? {};
  const dimNames = new Set<string>();
  for (const p of input.pods) for (const k in p.requests) dimNames.add(k);
  for (const d of input.daemonSets) for (const k in d.template.requests) dimNames.add(k);
  const dims = new Dims(dimNames);

  // Static NodePools (spec.replicas) keep a fixed count of nodes and are never launched for pending pods;
  // their nodes are still targets as existing nodes.
  const pools = input.nodePools
    .filter((p) => !p.deleting && p.ready !== false && !isStatic(p))
    .sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const templates: Template[] = pools
    .map((p) => buildTemplate(p, input.instanceTypes[p.name] ?? [], input.daemonSets, dims))
    .filter((t) => t.options.length > 0);
  const emptyPools = pools.filter((p) => !templates.some((t) => t.pool === p)).map((p) => p.name);

  const vidx = volumeIndex(input.persistentVolumes, input.persistentVolumeClaims, input.storageClasses);
  const { states, ignored } = podStates(input, vidx, opts.preferencePolicy === 'Ignore', dims);

  const model = opts.existingModel;
  const exclude = opts.excludeNodes;
  let existing: ExistingNodeState[];
  let existingRoom: Float64Array;
  if (model) ({ existing, room: existingRoom } = model.targets(input, dims, vidx, exclude));
  else {
    existing = existingStates(input, dims, vidx, exclude);
    existingRoom = roomOf(existing, dims.size);
  }

  const run: SolveRun = {
    input,
    dims,
    minValuesPolicy: opts.minValuesPolicy ?? 'Strict',
    pools,
    templates,
    emptyPools,
    existing,
    existingRoom,
    existingSkip: new Map(),
    topology: buildTopology(input, templates, states, existing),
    limits: poolLimits(input, pools),
    claims: [],
    hostnameSeq: 0,
    hostIndex: new Map(),
  };
  return { run, states, ignored };
}

/** The pods to schedule (not DaemonSet pods), and those Karpenter would not consider, with why. */
function podStates(input: SchedulingInput, vidx: VolumeIndex, ignorePrefs: boolean, dims: Dims): { states: PodState[]; ignored: UnschedulablePod[] } {
  const ignored: UnschedulablePod[] = [];
  const states: PodState[] = [];
  input.pods.forEach((pod, i) => {
    if (pod.owner?.kind === 'DaemonSet') return;
    const why = ignoreReason(pod);
    if (why) {
      ignored.push({ pod, reason: why });
      return;
    }
    const vr = volumeRequirements(pod, vidx);
    if (typeof vr === 'string') {
      ignored.push({ pod, reason: vr });
      return;
    }
    const st = podStateIn(pod, i, vr, ignorePrefs, dims);
    if (pod.volumeClaims.length > 0) st.volumes = podVolumes(pod, vidx);
    states.push(st);
  });
  return { states, ignored };
}

/**
 * Topology domains: what each pool's nodes could have (requirements, labels, types' labels and offerings),
 * plus every existing node's labels; the groups of pending pods and of running pods' required anti-affinity,
 * counted with the running pods.
 */
function buildTopology(input: SchedulingInput, templates: Template[], states: PodState[], existing: ExistingNodeState[]): Topology {
  const topology = new Topology(templates, existing, namespaceIndexOf(input));
  for (const s of states) topology.ownedGroups(s);
  const antiPods = input.options?.existingModel?.requiredAntiPods(input) ?? input.existingNodes.flatMap((n) => n.pods.filter(hasRequiredAnti));
  for (const p of antiPods) topology.requiredAntiOf(p);
  if (topology.hasGroups) {
    for (const n of existing) for (const p of n.node.pods) topology.record(p, n.requirements, n.placement);
  }
  return topology;
}

/** What a pool uses against its limits: the usage given, else its nodes' capacity and count (a new object). */
export function poolUsage(input: SchedulingInput, pool: string): ResourceList {
  if (input.poolUsage) return { ...(input.poolUsage[pool] ?? {}) };
  const usage: ResourceList = {};
  for (const n of input.existingNodes) {
    if (n.nodePool !== pool) continue;
    for (const k in n.capacity) usage[k] = (usage[k] ?? 0) + n.capacity[k];
    usage.nodes = (usage.nodes ?? 0) + 1;
  }
  return usage;
}

/** What each pool with limits has left: its limits less its nodes' capacity (or the usage given). */
function poolLimits(input: SchedulingInput, pools: NodePool[]): Map<string, Limits> {
  const limits = new Map<string, Limits>();
  for (const p of pools) {
    if (Object.keys(p.limits).length === 0) continue;
    const usage = poolUsage(input, p.name);
    const remaining: ResourceList = {};
    for (const k in p.limits) remaining[k] = p.limits[k] - (usage[k] ?? 0);
    limits.set(p.name, { remaining });
  }
  return limits;
}
