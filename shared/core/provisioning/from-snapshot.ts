/**
 * Between the cluster snapshot and the scheduler: which pods are pending, which nodes and in-flight claims
 * can take pods, and how a planned claim becomes a NodeClaim object.
 */
import type { InstanceType } from '../instance-types/types';
import { capacityOverlaid, priceOverlaid } from '../instance-types/overlays';
import { isProvisionable } from '../lifecycle/provisionable';
import type { DaemonSet, Node, Pod } from '../model/kube';
import { NodePoolHashVersion, nodePoolHash } from '../model/hash';
import { conditionIsTrue, type NodeClaim, type NodePool } from '../model/karpenter';
import { Annotation, EphemeralTaintKeys, Finalizer, Label, TaintKey } from '../model/labels';
import type { ResourceList } from '../model/resources';
import type { ClusterSnapshot } from '../ports/cluster-client';
import { Requirements } from '../scheduling/requirements';
import type { ExistingNode, PlannedNodeClaim, SchedulingInput, SchedulingOptions } from '../scheduling/types';
import { wholeSecond, type EpochMs } from '../time';
import { keepPlannedPods, plannedPodsValue } from './planned-pods';

export interface FromSnapshotOptions extends SchedulingOptions {
  /** Pods to place; default: Karpenter's provisionable pods plus reschedulable pods of deleting nodes. */
  pendingPods?: Pod[];
}

const isTerminal = (p: Pod) => p.phase === 'Succeeded' || p.phase === 'Failed';

function nodeIsDeleting(n: Node, claim: NodeClaim | undefined): boolean {
  return n.deletionTimestamp !== undefined || claim?.deletionTimestamp !== undefined || n.taints.some((t) => t.key === TaintKey.disrupted);
}

/** Pods that must move because their node is going away (docs/karpenter-reference.md §2.1 "Also added"). */
export function reschedulablePods(snapshot: ClusterSnapshot): Pod[] {
  const claimsByNode = new Map(snapshot.nodeClaims.filter((c) => c.status.nodeName).map((c) => [c.status.nodeName!, c]));
  const deleting = new Set(snapshot.nodes.filter((n) => nodeIsDeleting(n, claimsByNode.get(n.name))).map((n) => n.name));
  return snapshot.pods.filter(
    (p) =>
      p.nodeName &&
      deleting.has(p.nodeName) &&
      !isTerminal(p) &&
      p.deletionTimestamp === undefined &&
      p.owner?.kind !== 'DaemonSet' &&
      p.owner?.kind !== 'Node',
  );
}

/** The smallest allocatable of the named types, per resource (what a claim of any of them can hold). */
export function minAllocatable(types: readonly InstanceType[], names: readonly string[] | undefined): ResourceList | undefined {
  const pick = names ? types.filter((t) => names.includes(t.name)) : [];
  if (pick.length === 0) return undefined;
  const out: ResourceList = { ...pick[0].allocatable };
  for (const t of pick.slice(1)) for (const k of Object.keys(out)) out[k] = Math.min(out[k], t.allocatable[k] ?? 0);
  return out;
}

/**
 * An uninitialized node's kubelet may not report extended resources (GPUs from a device plugin) yet: like
 * Karpenter's StateNode, take any resource the node reports as missing or zero from its NodeClaim, so pending
 * GPU pods wait for that node instead of launching another.
 */
function fillFromClaim(node: ResourceList, claim: ResourceList | undefined): ResourceList {
  if (!claim) return node;
  const out: ResourceList = { ...node };
  for (const k in claim) if (!out[k]) out[k] = claim[k];
  return out;
}

/** The smallest per-driver volume limit over some instance types (what a node of any of them can attach). */
function minVolumeLimits(types: InstanceType[]): Record<string, number> | undefined {
  let out: Record<string, number> | undefined;
  for (const t of types) {
    if (!t.volumeLimits) return undefined; // a type without a known limit: none can be assumed
    if (!out) {
      out = { ...t.volumeLimits };
      continue;
    }
    for (const k of Object.keys(out)) out[k] = t.volumeLimits[k] === undefined ? out[k] : Math.min(out[k], t.volumeLimits[k]);
  }
  return out;
}

export function existingNodesFromSnapshot(snapshot: ClusterSnapshot, instanceTypesByPool: Record<string, InstanceType[]> = {}): ExistingNode[] {
  const typeByName = new Map<string, InstanceType>();
  for (const types of Object.values(instanceTypesByPool)) for (const t of types) if (!typeByName.has(t.name)) typeByName.set(t.name, t);
  const podsByNode = new Map<string, Pod[]>();
  for (const p of snapshot.pods) {
    if (!p.nodeName || isTerminal(p)) continue;
    const l = podsByNode.get(p.nodeName);
    if (l) l.push(p);
    else podsByNode.set(p.nodeName, [p]);
  }
  const claimByProvider = new Map(snapshot.nodeClaims.filter((c) => c.status.providerID).map((c) => [c.status.providerID!, c]));
  const claimByNode = new Map(snapshot.nodeClaims.filter((c) => c.status.nodeName).map((c) => [c.status.nodeName!, c]));
  const out: ExistingNode[] = [];
  const seenClaims = new Set<string>();
  for (const n of snapshot.nodes) {
    const claim = (n.providerID ? claimByProvider.get(n.providerID) : undefined) ?? claimByNode.get(n.name);
    if (claim) seenClaims.add(claim.name);
    const managed = n.labels[Label.nodePool] !== undefined || claim !== undefined;
    const initialized = managed ? n.labels[Label.initialized] === 'true' : n.ready;
    const startup = new Set((claim?.spec.startupTaints ?? []).map((t) => `${t.key}:${t.effect}`));
    // Until registration syncs the claim onto the Node, the claim is what the node will be (Karpenter's StateNode).
    const unregistered = claim !== undefined && !conditionIsTrue(claim, 'Registered');
    const taints = unregistered ? claim.spec.taints : n.taints;
    out.push({
      name: n.name,
      labels: unregistered ? { ...claim.labels, [Label.nodePool]: claim.nodePool, [Label.hostname]: n.name } : n.labels,
      taints: initialized ? taints : taints.filter((t) => !startup.has(`${t.key}:${t.effect}`) && !(managed && EphemeralTaintKeys.has(t.key))),
      allocatable: initialized ? n.allocatable : fillFromClaim(n.allocatable, claim?.status.allocatable),
      capacity: initialized ? n.capacity : fillFromClaim(n.capacity, claim?.status.capacity),
      pods: podsByNode.get(n.name) ?? [],
      nodePool: n.labels[Label.nodePool],
      nodeClaim: claim?.name,
      initialized,
      markedForDeletion: nodeIsDeleting(n, claim) || n.unschedulable,
      volumeLimits: typeByName.get(n.labels[Label.instanceType])?.volumeLimits,
    });
  }
  for (const c of snapshot.nodeClaims) {
    if (seenClaims.has(c.name) || c.deletionTimestamp !== undefined) continue;
    const reqs = Requirements.fromNodeSelector(c.spec.requirements);
    const types = instanceTypesByPool[c.nodePool] ?? [];
    const typeNames = reqs.get(Label.instanceType)?.complement ? undefined : [...(reqs.get(Label.instanceType)?.values ?? [])];
    const allocatable = c.status.allocatable ?? minAllocatable(types, typeNames) ?? c.spec.resources.requests;
    const launched = c.labels[Label.instanceType] ?? (typeNames?.length === 1 ? typeNames[0] : undefined);
    out.push({
      name: c.status.nodeName ?? c.name,
      labels: { ...reqs.labels(), ...c.labels, [Label.nodePool]: c.nodePool, [Label.hostname]: c.status.nodeName ?? c.name },
      taints: c.spec.taints,
      allocatable,
      capacity: c.status.capacity ?? allocatable,
      pods: [],
      nodePool: c.nodePool,
      nodeClaim: c.name,
      initialized: false,
      inFlight: true,
      markedForDeletion: conditionIsTrue(c, 'InstanceTerminating'),
      volumeLimits: launched ? typeByName.get(launched)?.volumeLimits : minVolumeLimits(types.filter((t) => typeNames?.includes(t.name))),
    });
  }
  return out;
}

/**
 * DaemonSet overhead as Karpenter computes it: from the DaemonSet's newest pod when one exists (its requests may
 * differ from the template: a LimitRange, VPA, an admission webhook), else from the template. The required node
 * affinity is the template's: the DaemonSet controller pins each pod to its own node (`matchFields metadata.name`).
 */
function daemonSetsAsRunning(daemonSets: DaemonSet[], pods: readonly Pod[]): DaemonSet[] {
  if (daemonSets.length === 0) return daemonSets;
  const newest = new Map<string, Pod>();
  for (const p of pods) {
    if (p.owner?.kind !== 'DaemonSet' || p.deletionTimestamp !== undefined) continue;
    const key = `${p.namespace}/${p.owner.name}`;
    const seen = newest.get(key);
    if (!seen || p.creationTimestamp > seen.creationTimestamp) newest.set(key, p);
  }
  if (newest.size === 0) return daemonSets;
  return daemonSets.map((ds) => {
    const pod = newest.get(`${ds.namespace}/${ds.name}`);
    if (!pod) return ds;
    const required = ds.template.affinity?.nodeAffinity?.required;
    const { required: _pinned, ...preferred } = pod.affinity?.nodeAffinity ?? {};
    const nodeAffinity = { ...preferred, ...(required ? { required } : {}) };
    const affinity = { ...pod.affinity, nodeAffinity };
    const { nodeName: _bound, ...rest } = pod;
    return { ...ds, template: { ...rest, affinity } };
  });
}

export function schedulingInputFromSnapshot(
  snapshot: ClusterSnapshot,
  instanceTypesByPool: Record<string, InstanceType[]>,
  options: FromSnapshotOptions = {},
): SchedulingInput {
  const { pendingPods, ...schedulingOptions } = options;
  const wanted = pendingPods ?? [...snapshot.pods.filter(isProvisionable), ...reschedulablePods(snapshot)];
  // Pods planned for a claim still in flight stay on it (planned-pods.ts).
  const { existing, pending: pods } = keepPlannedPods(snapshot.nodeClaims, existingNodesFromSnapshot(snapshot, instanceTypesByPool), snapshot.pods, wanted);
  return {
    pods,
    nodePools: snapshot.nodePools,
    instanceTypes: instanceTypesByPool,
    existingNodes: existing,
    daemonSets: daemonSetsAsRunning(snapshot.daemonSets, snapshot.pods),
    persistentVolumes: snapshot.persistentVolumes,
    persistentVolumeClaims: snapshot.persistentVolumeClaims,
    storageClasses: snapshot.storageClasses,
    ...(snapshot.namespaces ? { namespaces: snapshot.namespaces } : {}),
    options: schedulingOptions,
  };
}

/**
 * The NodeClaim object for a planned claim (spec as Karpenter writes it: requirements, taints, requests). Its
 * metadata is the pool template's, as Karpenter's NodeClaim template: template labels (already in the planned
 * labels) plus `karpenter.sh/nodepool`, template annotations plus the nodepool hash annotations (which win), and
 * an owner reference to the pool, so deleting the pool deletes its claims (the API server's garbage collector).
 */
export function plannedClaimToNodeClaim(claim: PlannedNodeClaim, name: string, nowMs: EpochMs, pool?: NodePool): NodeClaim {
  const annotations: Record<string, string> = { ...claim.annotations };
  if (pool) {
    annotations[Annotation.nodePoolHash] = pool.hash ?? nodePoolHash(pool);
    annotations[Annotation.nodePoolHashVersion] = NodePoolHashVersion;
  }
  if (claim.minValuesRelaxed) annotations[Annotation.minValuesRelaxed] = 'true';
  if (priceOverlaid(claim.instanceTypes)) annotations[Annotation.priceOverlayApplied] = 'true';
  if (capacityOverlaid(claim.instanceTypes)) annotations[Annotation.capacityOverlayApplied] = 'true';
  const planned = plannedPodsValue(claim.pods);
  if (planned) annotations[Annotation.plannedPods] = planned;
  return {
    name,
    labels: { ...claim.labels, [Label.nodePool]: claim.nodePool },
    annotations,
    nodePool: claim.nodePool,
    spec: {
      taints: claim.taints,
      startupTaints: claim.startupTaints,
      requirements: claim.requirements,
      resources: { requests: claim.requests },
      nodeClassRef: claim.nodeClassRef,
      expireAfter: claim.expireAfter,
      terminationGracePeriod: claim.terminationGracePeriod,
    },
    status: { conditions: [] },
    creationTimestamp: wholeSecond(nowMs),
    finalizers: [Finalizer.termination],
    ...(pool?.uid ? { nodePoolUid: pool.uid } : {}),
  };
}
