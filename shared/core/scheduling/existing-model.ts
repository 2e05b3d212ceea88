/**
 * The existing nodes as scheduling targets, built once and shared by every solve over the same cluster: a disruption
 * pass simulates one candidate after another against the same nodes, and building every node's model (its room, labels
 * as requirements, DaemonSet overhead) for each simulation made a pass O(nodes²). A solve takes the models it needs
 * (the candidates excluded), places pods on them, and undoes its placements before it returns (solve.ts).
 */
import type { Pod } from '../model/kube';
import type { Dims } from './dims';
import { ExistingNodeState } from './existing-node';
import type { SchedulingInput } from './types';
import { podVolumes, type VolumeIndex } from './volumes';

export class ExistingModel {
  /** Per set of resource dimensions (dims.names): every node not marked for deletion, in the solver's order. */
  private readonly byDims = new Map<string, Models>();
  private source?: Pick<SchedulingInput, 'existingNodes' | 'daemonSets' | 'persistentVolumeClaims'>;
  private antiPods?: Pod[];

  /** Models are only reused for the same nodes, DaemonSets and claims (the same arrays); anything else starts afresh. */
  private sameCluster(input: SchedulingInput): void {
    const s = this.source;
    if (s && s.existingNodes === input.existingNodes && s.daemonSets === input.daemonSets && s.persistentVolumeClaims === input.persistentVolumeClaims) return;
    this.source = { existingNodes: input.existingNodes, daemonSets: input.daemonSets, persistentVolumeClaims: input.persistentVolumeClaims };
    this.byDims.clear();
    this.antiPods = undefined;
  }

  /**
   * The node models for `dims` without the excluded nodes, and per dimension the most room any of them has — both
   * without a walk over every node when at most one node is excluded (single-node consolidation).
   */
  targets(
    input: SchedulingInput,
    dims: Dims,
    vidx: VolumeIndex,
    exclude: ReadonlySet<string> | undefined,
  ): { existing: ExistingNodeState[]; room: Float64Array } {
    this.sameCluster(input);
    const key = dims.names.join('|');
    let m = this.byDims.get(key);
    if (!m) this.byDims.set(key, (m = models(existingStates(input, dims, vidx, undefined), dims.size)));
    const out = m.states.length;
    const gone = [...(exclude ?? [])].map((n) => m.index.get(n) ?? out).filter((i) => i < out);
    if (gone.length === 0) return { existing: m.states, room: Float64Array.from(m.top, (t) => t.max) };
    gone.sort((a, b) => a - b);
    const existing: ExistingNodeState[] = m.states.slice(0, gone[0]);
    for (let j = 0; j < gone.length; j++) for (let i = gone[j] + 1; i < (gone[j + 1] ?? out); i++) existing.push(m.states[i]);
    if (gone.length > 1) return { existing, room: roomOf(existing, dims.size) };
    return { existing, room: Float64Array.from(m.top, (t) => (t.at === gone[0] ? t.second : t.max)) };
  }

  /** Running pods with required pod anti-affinity (every other pod adds no topology group). */
  requiredAntiPods(input: SchedulingInput): Pod[] {
    this.sameCluster(input);
    this.antiPods ??= input.existingNodes.flatMap((n) => n.pods.filter(hasRequiredAnti));
    return this.antiPods;
  }
}

interface Models {
  states: ExistingNodeState[];
  index: Map<string, number>;
  /** Per dimension: the most room (at least 0), the node that has it, and the most room of every other node. */
  top: { max: number; at: number; second: number }[];
}

function models(states: ExistingNodeState[], size: number): Models {
  const top = Array.from({ length: size }, () => ({ max: 0, at: -1, second: 0 }));
  states.forEach((n, k) => {
    for (let i = 0; i < size; i++) {
      const r = n.remaining[i];
      const t = top[i];
      if (r > t.max) {
        t.second = t.max;
        t.max = r;
        t.at = k;
      } else if (r > t.second) t.second = r;
    }
  });
  return { states, index: new Map(states.map((n, k) => [n.node.name, k])), top };
}

/** Per dimension, the most room any node has (at least 0). */
export function roomOf(existing: ExistingNodeState[], size: number): Float64Array {
  const room = new Float64Array(size);
  for (const n of existing) for (let i = 0; i < size; i++) if (n.remaining[i] > room[i]) room[i] = n.remaining[i];
  return room;
}

export const hasRequiredAnti = (p: Pod) => (p.affinity?.podAntiAffinity?.required?.length ?? 0) > 0;

/** Existing nodes not marked for deletion nor excluded, initialized first, then by name. */
export function existingStates(input: SchedulingInput, dims: Dims, vidx: VolumeIndex, exclude: ReadonlySet<string> | undefined): ExistingNodeState[] {
  return input.existingNodes
    .filter((n) => !n.markedForDeletion && !exclude?.has(n.name))
    .sort((a, b) => Number(b.initialized) - Number(a.initialized) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((n) => new ExistingNodeState(n, input.daemonSets, dims, (p) => podVolumes(p, vidx)));
}
