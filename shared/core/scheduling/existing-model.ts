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
  private readonly byDims = new Map<string, ExistingNodeState[]>();
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

  /** The node models for `dims`, all of them (callers leave out excluded nodes). */
  states(input: SchedulingInput, dims: Dims, vidx: VolumeIndex): ExistingNodeState[] {
    this.sameCluster(input);
    const key = dims.names.join('|');
    let out = this.byDims.get(key);
    if (!out) this.byDims.set(key, (out = existingStates(input, dims, vidx, undefined)));
    return out;
  }

  /** Running pods with required pod anti-affinity (every other pod adds no topology group). */
  requiredAntiPods(input: SchedulingInput): Pod[] {
    this.sameCluster(input);
    this.antiPods ??= input.existingNodes.flatMap((n) => n.pods.filter(hasRequiredAnti));
    return this.antiPods;
  }
}

export const hasRequiredAnti = (p: Pod) => (p.affinity?.podAntiAffinity?.required?.length ?? 0) > 0;

/** Existing nodes not marked for deletion nor excluded, initialized first, then by name. */
export function existingStates(input: SchedulingInput, dims: Dims, vidx: VolumeIndex, exclude: ReadonlySet<string> | undefined): ExistingNodeState[] {
  return input.existingNodes
    .filter((n) => !n.markedForDeletion && !exclude?.has(n.name))
    .sort((a, b) => Number(b.initialized) - Number(a.initialized) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((n) => new ExistingNodeState(n, input.daemonSets, dims, (p) => podVolumes(p, vidx)));
}
