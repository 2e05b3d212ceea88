/** An existing node or in-flight NodeClaim as a scheduling target (docs/karpenter-reference.md §2.3, first target). */
import { Label } from '../model/labels';
import { formatResourceList, type ResourceList } from '../model/resources';
import type { DaemonSet } from '../model/kube';
import type { Dims } from './dims';
import { hostPortConflict, hostPortKeys } from './host-ports';
import type { PodState } from './pod-data';
import { Requirements } from './requirements';
import { taintString, untoleratedTaint } from './selectors';
import type { Placement, Topology } from './topology';
import type { ExistingNode } from './types';
import { type PodVolume, VolumeUsage } from './volumes';

const tolerationKeys = new WeakMap<PodState['tolerations'], string>();

/** The pod's tolerations as a key (pods of one template share it; computed once per tolerations array). */
export function tolerationsKey(s: PodState): string {
  let k = tolerationKeys.get(s.tolerations);
  if (k === undefined) tolerationKeys.set(s.tolerations, (k = JSON.stringify(s.tolerations)));
  return k;
}

const requirementKeys = new WeakMap<Requirements, string>();

/** Requirements as a key (a pod's, computed once per Requirements object: a relaxation makes a new one). */
export function requirementsKey(r: Requirements): string {
  let k = requirementKeys.get(r);
  if (k === undefined) requirementKeys.set(r, (k = JSON.stringify(r.toNodeSelector())));
  return k;
}

export class ExistingNodeState {
  readonly requirements: Requirements;
  readonly remaining: Float64Array;
  readonly hostPorts = new Set<string>();
  readonly placed: PodState[] = [];
  readonly hostname: string;
  readonly labels: Record<string, string>;
  readonly taints: ExistingNode['taints'];
  /** The node as a place for topology counting (spread node filters). */
  readonly placement: Placement;

  private volumes = new VolumeUsage();
  /** Whether pods with these tolerations (tolerationsKey) tolerate the node's taints: '' yes, else why not. */
  private readonly taintVerdicts = new Map<string, string>();
  /** Whether pods with these requirements (requirementsKey) match the node's labels: '' yes, else why not. */
  private readonly labelVerdicts = new Map<string, string>();
  /** The state before any placement of a solve: a node model reused across solves (resetPlacements) returns to it. */
  private readonly initial: { remaining: Float64Array; hostPorts: string[]; volumes: PodVolume[][] };

  constructor(
    readonly node: ExistingNode,
    daemonSets: DaemonSet[],
    private readonly dims: Dims,
    volumesOf?: (pod: ExistingNode['pods'][number]) => PodVolume[],
  ) {
    this.hostname = node.labels[Label.hostname] ?? node.name;
    this.labels = { ...node.labels, [Label.hostname]: this.hostname };
    this.taints = node.taints;
    this.requirements = Requirements.fromLabels(this.labels);
    this.placement = { matches: (f) => f.matchesLabels(this.labels), taints: node.taints };
    const remaining: ResourceList = { ...node.allocatable };
    const running = new Set<string>();
    const volumes: PodVolume[][] = [];
    for (const p of node.pods) {
      for (const k in p.requests) remaining[k] = (remaining[k] ?? 0) - p.requests[k];
      remaining.pods = (remaining.pods ?? 0) - 1;
      for (const k of hostPortKeys(p.hostPorts)) this.hostPorts.add(k);
      if (p.owner?.kind === 'DaemonSet') running.add(p.owner.name);
      if (volumesOf && p.volumeClaims.length > 0) volumes.push(volumesOf(p));
    }
    for (const v of volumes) this.volumes.add(v);
    // DaemonSet pods that will land on this node but are not there yet (in-flight claims, new nodes).
    for (const ds of daemonSets) {
      if (running.has(ds.name)) continue;
      const pod = ds.template;
      if (
        untoleratedTaint(
          pod,
          node.taints.filter((t) => t.effect !== 'PreferNoSchedule'),
          { ignoreEphemeral: true },
        )
      )
        continue;
      if (!Requirements.fromLabels(pod.nodeSelector).matchesLabels(node.labels)) continue;
      const terms = pod.affinity?.nodeAffinity?.required ?? [];
      if (terms.length > 0 && !terms.some((t) => Requirements.fromNodeSelector(t.matchExpressions).matchesLabels(node.labels))) continue;
      if (!node.inFlight) continue; // a registered node already runs (or failed to run) its daemons
      for (const k in pod.requests) remaining[k] = (remaining[k] ?? 0) - pod.requests[k];
      remaining.pods = (remaining.pods ?? 0) - 1;
      for (const k of hostPortKeys(pod.hostPorts)) this.hostPorts.add(k);
    }
    this.remaining = dims.vec(remaining);
    this.initial = { remaining: this.remaining.slice(), hostPorts: [...this.hostPorts], volumes };
  }

  /** Undoes the placements of a solve (the node model is then as built: see SchedulingOptions.existingModel). */
  resetPlacements(): void {
    if (this.placed.length === 0) return;
    this.remaining.set(this.initial.remaining);
    this.placed.length = 0;
    this.hostPorts.clear();
    for (const k of this.initial.hostPorts) this.hostPorts.add(k);
    this.volumes = new VolumeUsage();
    for (const v of this.initial.volumes) this.volumes.add(v);
  }

  /** Why the node's room is too small for the pod's requests, or undefined when it has room. */
  lacksRoom(s: PodState): string | undefined {
    for (const i of s.reqNz) if (s.reqVec[i] > this.remaining[i]) return `node ${this.node.name} has insufficient ${this.dims.names[i]}`;
    return undefined;
  }

  canAdd(s: PodState, topology: Topology): Requirements | string {
    const why = this.misfit(s);
    if (why !== undefined) return why;
    if (topology.hasGroups) return topology.addRequirements(s, this.requirements);
    return this.requirements;
  }

  /**
   * Why the pod cannot go here whatever else is placed (room, taints, host ports, volume limits, labels, volume
   * topology), or undefined. Within a solve a misfit stays one: nodes only fill up.
   */
  misfit(s: PodState): string | undefined {
    const room = this.lacksRoom(s);
    if (room) return room;
    if (this.node.taints.length > 0) {
      // The node's taints do not change within a solve: one verdict per distinct set of tolerations ('' = tolerated).
      const key = tolerationsKey(s);
      let verdict = this.taintVerdicts.get(key);
      if (verdict === undefined) {
        const taint = untoleratedTaint(s, this.node.taints, { ignoreEphemeral: !this.node.initialized });
        this.taintVerdicts.set(key, (verdict = taint ? `did not tolerate taint ${taintString(taint)}` : ''));
      }
      if (verdict) return verdict;
    }
    if (s.pod.hostPorts.length > 0) {
      const c = hostPortConflict(this.hostPorts, s.pod.hostPorts);
      if (c) return c;
    }
    if (s.volumes.length > 0) {
      const d = this.volumes.wouldExceed(s.volumes, this.node.volumeLimits);
      if (d) return `node ${this.node.name} would exceed its ${d} volume attach limit`;
    }
    if (s.requirements.byKey.size > 0) {
      // The node's labels do not change within a solve: one verdict per distinct set of requirements ('' = match).
      const key = requirementsKey(s.requirements);
      let verdict = this.labelVerdicts.get(key);
      if (verdict === undefined) {
        verdict = '';
        for (const [k, r] of s.requirements.byKey) {
          if (!r.has(this.labels[k])) {
            verdict = `node ${this.node.name} does not match ${k}`;
            break;
          }
        }
        this.labelVerdicts.set(key, verdict);
      }
      if (verdict) return verdict;
    }
    if (s.volumeAlternatives.length > 0 && !s.volumeAlternatives.some((alt) => alt.matchesLabels(this.labels))) {
      return `node ${this.node.name} does not match the pod's volume topology`;
    }
    return undefined;
  }

  commit(s: PodState): void {
    for (const i of s.reqNz) this.remaining[i] -= s.reqVec[i];
    if (s.volumes.length > 0) this.volumes.add(s.volumes);
    for (const k of hostPortKeys(s.pod.hostPorts)) this.hostPorts.add(k);
    this.placed.push(s);
  }

  describeRemaining(): string {
    return JSON.stringify(formatResourceList(this.dims.list(this.remaining)));
  }
}
