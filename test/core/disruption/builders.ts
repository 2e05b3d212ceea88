/** Plain data builders for disruption tests: managed nodes (Node + NodeClaim), bound pods, snapshots. */
import type { InstanceType, Offering } from '../../../shared/core/instance-types/types';
import type { Node, Pod, PodDisruptionBudget } from '../../../shared/core/model/kube';
import type { Budget, NodeClaim, NodePool } from '../../../shared/core/model/karpenter';
import { Annotation, Finalizer, Label, TaintKey } from '../../../shared/core/model/labels';
import { NodePoolHashVersion, nodePoolHash } from '../../../shared/core/model/hash';
import type { ClusterSnapshot } from '../../../shared/core/ports/cluster-client';
import type { DisruptionInput, DisruptionOptions } from '../../../shared/core/disruption';
import { instanceType, nodePool, pod, type PodOptions, type PoolOptions } from '../../fixtures/builders';
import { addSeconds, epochMs, type EpochMs } from '../../../shared/core/time';

/** "Now" for every test. */
export const NOW = epochMs(1_800_000_000_000);
/** The instant `seconds` before NOW (negative: after). */
export const ago = (seconds: number): EpochMs => addSeconds(NOW, -seconds);
/** An hour in seconds, as NodePool durations are written. */
export const HOUR = 3600;

const zones = ['zone-a', 'zone-b'];
export const onDemand = (price: number): Offering[] => zones.map((zone) => ({ zone, capacityType: 'on-demand', price, available: true }));
export const spotAndOnDemand = (price: number, spot = price * 0.4): Offering[] => [
  ...onDemand(price),
  ...zones.map((zone) => ({ zone, capacityType: 'spot' as const, price: spot, available: true })),
];

/** An instance type with `cpu` vCPUs, 2 GiB per vCPU, and the given offerings. */
export function sized(name: string, cpu: number, offerings: Offering[]): InstanceType {
  return instanceType({ name, cpu: String(cpu), memory: `${cpu * 2}Gi`, offerings });
}

/** With the kubelet's CPU reservation: allocatable = capacity − 90m (seed 000 shows 7910m on a c6g.2xlarge). */
function reserved(it: InstanceType): InstanceType {
  return { ...it, allocatable: { ...it.allocatable, cpu: it.capacity.cpu - 90 } };
}

/** Graviton-like on-demand family for the seed story: large 2, xlarge 4, 2xlarge 8 vCPUs. */
export const c6g = {
  large: reserved(sized('c6g.large', 2, onDemand(0.068))),
  xlarge: reserved(sized('c6g.xlarge', 4, onDemand(0.136))),
  x2large: reserved(sized('c6g.2xlarge', 8, onDemand(0.272))),
};

export function pool(
  o: PoolOptions & {
    budgets?: Budget[];
    consolidateAfter?: number | null;
    policy?: NodePool['disruption']['consolidationPolicy'];
    expireAfter?: number | null;
    terminationGracePeriod?: number | null;
  } = {},
): NodePool {
  const p = nodePool(o);
  if (o.budgets) p.disruption.budgets = o.budgets;
  if (o.consolidateAfter !== undefined) p.disruption.consolidateAfter = o.consolidateAfter;
  if (o.policy) p.disruption.consolidationPolicy = o.policy;
  if (o.expireAfter !== undefined) p.template.expireAfter = o.expireAfter;
  if (o.terminationGracePeriod !== undefined) p.template.terminationGracePeriod = o.terminationGracePeriod;
  return p;
}

export interface ManagedOptions {
  pool?: NodePool;
  type: InstanceType;
  zone?: string;
  capacityType?: 'on-demand' | 'spot';
  /** Default an hour ago. */
  createdAt?: EpochMs;
  lastPodEventTime?: EpochMs;
  nodeAnnotations?: Record<string, string>;
  claimAnnotations?: Record<string, string>;
  deleting?: boolean;
  disrupted?: boolean;
  initialized?: boolean;
  driftedCondition?: { reason: string; at: EpochMs };
}

export interface Managed {
  node: Node;
  claim: NodeClaim;
}

export function managed(name: string, o: ManagedOptions): Managed {
  const p = o.pool ?? pool();
  const zone = o.zone ?? 'zone-a';
  const ct = o.capacityType ?? 'on-demand';
  const created = o.createdAt ?? ago(HOUR);
  const initialized = o.initialized ?? true;
  const labels = {
    ...o.type.labels,
    [Label.zone]: zone,
    [Label.capacityType]: ct,
    [Label.hostname]: name,
    [Label.nodePool]: p.name,
    [Label.registered]: 'true',
    ...(initialized ? { [Label.initialized]: 'true' } : {}),
  };
  const providerID = `aws:///${zone}/i-${name}`;
  const node: Node = {
    name,
    labels,
    annotations: o.nodeAnnotations ?? {},
    taints: o.disrupted ? [{ key: TaintKey.disrupted, effect: 'NoSchedule' }] : [],
    capacity: o.type.capacity,
    allocatable: o.type.allocatable,
    providerID,
    unschedulable: false,
    ready: true,
    creationTimestamp: created,
    finalizers: [Finalizer.termination],
    ...(o.deleting ? { deletionTimestamp: ago(10) } : {}),
  };
  const claim: NodeClaim = {
    name: `claim-${name}`,
    labels: { ...labels },
    annotations: { [Annotation.nodePoolHash]: nodePoolHash(p), [Annotation.nodePoolHashVersion]: NodePoolHashVersion, ...(o.claimAnnotations ?? {}) },
    nodePool: p.name,
    spec: {
      taints: [],
      startupTaints: [],
      requirements: [],
      resources: { requests: {} },
      nodeClassRef: p.template.nodeClassRef,
      expireAfter: p.template.expireAfter,
      terminationGracePeriod: p.template.terminationGracePeriod,
    },
    status: {
      nodeName: name,
      providerID,
      capacity: o.type.capacity,
      allocatable: o.type.allocatable,
      ...(o.lastPodEventTime !== undefined ? { lastPodEventTime: o.lastPodEventTime } : {}),
      conditions: [
        ...(initialized ? [{ type: 'Initialized', status: 'True' as const, lastTransitionTime: addSeconds(created, 60) }] : []),
        ...(o.driftedCondition
          ? [{ type: 'Drifted', status: 'True' as const, reason: o.driftedCondition.reason, lastTransitionTime: o.driftedCondition.at }]
          : []),
      ],
    },
    creationTimestamp: created,
    finalizers: [Finalizer.termination],
  };
  return { node, claim };
}

/** A running, ready pod bound to `node`, started an hour ago. */
export function bound(node: string | Managed, o: PodOptions = {}): Pod {
  const nodeName = typeof node === 'string' ? node : node.node.name;
  return { ...pod({ cpu: '1', ...o, nodeName }), phase: 'Running', ready: true, startTime: ago(HOUR) };
}

export function pdb(name: string, selector: Record<string, string>, o: Partial<PodDisruptionBudget> = {}): PodDisruptionBudget {
  return { namespace: 'default', name, selector: { matchLabels: selector }, ...o };
}

export function cluster(o: { pools?: NodePool[]; nodes?: Managed[]; pods?: Pod[]; pdbs?: PodDisruptionBudget[] }): ClusterSnapshot {
  return {
    pods: o.pods ?? [],
    nodes: (o.nodes ?? []).map((m) => m.node),
    nodeClaims: (o.nodes ?? []).map((m) => m.claim),
    nodePools: o.pools ?? [pool()],
    nodeClasses: [],
    pdbs: o.pdbs ?? [],
    daemonSets: [],
    persistentVolumes: [],
    persistentVolumeClaims: [],
    storageClasses: [],
  };
}

export function input(
  snapshot: ClusterSnapshot,
  types: InstanceType[],
  o: { now?: EpochMs; options?: DisruptionOptions; drifted?: Record<string, string> } = {},
): DisruptionInput {
  return {
    snapshot,
    now: o.now ?? NOW,
    options: o.options,
    drifted: o.drifted,
    instanceTypes: Object.fromEntries(snapshot.nodePools.map((p) => [p.name, types])),
  };
}

export const claimNames = (cs: { nodeClaim: { name: string } }[] | undefined) => (cs ?? []).map((c) => c.nodeClaim.name).sort();
