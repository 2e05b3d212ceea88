/**
 * Which nodes may be disrupted (docs/karpenter-reference.md §4.2): the node checks, the pod blockers, and the per-pool counts
 * the budgets are computed over. Every node considered yields either a Candidate or a rejection reason.
 */
import type { InstanceType } from '../instance-types/types';
import type { Node, Pod } from '../model/kube';
import { conditionIsTrue, type DisruptionReason, type NodeClaim, type NodePool } from '../model/karpenter';
import { Annotation, type CapacityTypeValue, Label, TaintKey } from '../model/labels';
import type { PoolCounts } from './budgets';
import { BudgetTracker } from './budgets';
import { disruptionCost, isActive, isReschedulable, PdbIndex, podsBlock, type PodBlock } from './pods';
import type { Candidate, DisruptionInput } from './types';
import { isVirtualPod } from '../buffers/virtual-pods';
import { isStandbyClaim } from '../buffers/standby';
import { addSeconds, type EpochMs } from '../time';

/** A managed node with its claim, pool and pods. */
export interface NodeView {
  claim: NodeClaim;
  node: Node;
  pool?: NodePool;
  /** Non-terminal pods bound to the node. */
  pods: Pod[];
}

export interface ClusterView {
  input: DisruptionInput;
  views: NodeView[];
  pools: Map<string, NodePool>;
  pdbs: PdbIndex;
  counts: Map<string, PoolCounts>;
  nominated: Set<string>;
}

export const isDisrupting = (v: { node: Node; claim: NodeClaim }) =>
  v.node.deletionTimestamp !== undefined || v.claim.deletionTimestamp !== undefined || v.node.taints.some((t) => t.key === TaintKey.disrupted);
const isInitialized = (v: NodeView) => conditionIsTrue(v.claim, 'Initialized') || v.node.labels[Label.initialized] === 'true';

export function clusterView(input: DisruptionInput): ClusterView {
  const s = input.snapshot;
  const byProvider = new Map(s.nodeClaims.filter((c) => c.status.providerID).map((c) => [c.status.providerID!, c]));
  const byNode = new Map(s.nodeClaims.filter((c) => c.status.nodeName).map((c) => [c.status.nodeName!, c]));
  const podsByNode = new Map<string, Pod[]>();
  for (const p of s.pods) {
    if (!p.nodeName || p.phase === 'Succeeded' || p.phase === 'Failed') continue;
    const l = podsByNode.get(p.nodeName);
    if (l) l.push(p);
    else podsByNode.set(p.nodeName, [p]);
  }
  const pools = new Map(s.nodePools.map((p) => [p.name, p]));
  const views: NodeView[] = [];
  for (const node of s.nodes) {
    if (node.labels[Label.nodePool] === undefined) continue; // not managed
    const claim = (node.providerID ? byProvider.get(node.providerID) : undefined) ?? byNode.get(node.name);
    if (!claim) continue;
    views.push({ claim, node, pool: pools.get(claim.nodePool), pods: podsByNode.get(node.name) ?? [] });
  }
  const counts = new Map<string, PoolCounts>();
  for (const v of views) {
    // A stopped standby node is NotReady by design: it is not capacity the budgets count.
    if (!isInitialized(v) || conditionIsTrue(v.claim, 'InstanceTerminating') || isStandbyClaim(v.claim)) continue;
    const c = counts.get(v.claim.nodePool) ?? { total: 0, disrupting: 0 };
    c.total++;
    if (!v.node.ready || isDisrupting(v)) c.disrupting++;
    counts.set(v.claim.nodePool, c);
  }
  const nominated = new Set(input.options?.nominatedNodes ?? []);
  for (const p of s.pods) if (!p.nodeName && p.nominatedNodeName && p.deletionTimestamp === undefined) nominated.add(p.nominatedNodeName);
  // CapacityBuffers' virtual pods hold room; no PDB counts them.
  return {
    input,
    views,
    pools,
    pdbs: new PdbIndex(
      s.pdbs,
      s.pods.filter((p) => !isVirtualPod(p)),
    ),
    counts,
    nominated,
  };
}

export function budgets(view: ClusterView, reason: DisruptionReason): BudgetTracker {
  return new BudgetTracker(view.input.snapshot.nodePools, reason, view.counts, view.input.now);
}

/** The node checks shared by every budgeted method; a reason when the node is not a candidate. */
export function nodeCheck(view: ClusterView, v: NodeView): string | undefined {
  if (!v.pool) return `nodepool "${v.claim.nodePool}" not found`;
  if (!isInitialized(v)) return 'node is not initialized';
  if (v.node.deletionTimestamp !== undefined || v.claim.deletionTimestamp !== undefined) return 'node is being deleted';
  if (v.node.taints.some((t) => t.key === TaintKey.disrupted)) return `node is already being disrupted (${TaintKey.disrupted} taint)`;
  if (view.nominated.has(v.node.name)) return 'node is nominated for pending pods';
  if (isStandbyClaim(v.claim)) return `standby capacity of CapacityBuffer ${v.claim.annotations[Annotation.standby]}: kept stopped for pending pods`;
  if (v.node.annotations[Annotation.doNotDisrupt] === 'true') return `node has ${Annotation.doNotDisrupt}: "true"`;
  // Karpenter reads the NodeClaim's annotations until the Node is initialized; either object carrying it protects the node.
  if (v.claim.annotations[Annotation.doNotDisrupt] === 'true') return `nodeclaim has ${Annotation.doNotDisrupt}: "true"`;
  return undefined;
}

/**
 * Why consolidation (emptiness, multi- and single-node) may not take the node: the pre-v1 node annotation
 * `karpenter.sh/do-not-consolidate: "true"` (on the Node or its NodeClaim, e.g. from a converted Provisioner's
 * annotations). Drift and expiration are not blocked by it.
 */
export function consolidationCheck(v: NodeView): string | undefined {
  if (v.node.annotations[Annotation.doNotConsolidate] === 'true')
    return `node has ${Annotation.doNotConsolidate}: "true" (deprecated; use ${Annotation.doNotDisrupt})`;
  if (v.claim.annotations[Annotation.doNotConsolidate] === 'true')
    return `nodeclaim has ${Annotation.doNotConsolidate}: "true" (deprecated; use ${Annotation.doNotDisrupt})`;
  return undefined;
}

/** Pod blockers; ignored for drift when the claim has a terminationGracePeriod (it bounds the drain). */
export function podCheck(view: ClusterView, v: NodeView, forDrift: boolean): PodBlock | undefined {
  if (forDrift && v.claim.spec.terminationGracePeriod !== null) return undefined;
  return podsBlock(v.pods.filter(isActive), view.pdbs, view.input.now);
}

function findPrice(types: InstanceType[] | undefined, name: string, zone: string, ct: string): number | undefined {
  const it = types?.find((t) => t.name === name);
  return it?.offerings.find((o) => o.zone === zone && o.capacityType === ct)?.price;
}

/** The candidate for a node, or why its type, zone, capacity type or price is unknown. */
export function toCandidate(view: ClusterView, v: NodeView, priceOptional = false): Candidate | string {
  const l = { ...v.claim.labels, ...v.node.labels };
  const instanceType = l[Label.instanceType];
  const zone = l[Label.zone];
  const capacityType = l[Label.capacityType] as CapacityTypeValue | undefined;
  if ((!instanceType || !zone || !capacityType) && !priceOptional) return 'instance type, zone or capacity type of the node is unknown';
  const all = view.input.instanceTypes;
  let price = instanceType && zone && capacityType ? findPrice(all[v.claim.nodePool], instanceType, zone, capacityType) : undefined;
  for (const k of Object.keys(all)) if (instanceType && zone && capacityType) price ??= findPrice(all[k], instanceType, zone, capacityType);
  if (price === undefined && !priceOptional) return `no price known for ${instanceType} ${capacityType} in ${zone}`;
  const pods = v.pods.filter(isReschedulable);
  return {
    nodeClaim: v.claim,
    node: v.node,
    nodePool: v.pool!,
    instanceType: instanceType ?? 'unknown',
    capacityType: capacityType ?? 'on-demand',
    zone: zone ?? 'unknown',
    price: price ?? 0,
    pods,
    disruptionCost: disruptionCost(pods, v.claim.creationTimestamp, v.claim.spec.expireAfter, view.input.now),
  };
}

/** Consolidatable: consolidateAfter ≠ Never and elapsed since the last pod event (or initialization). */
export function consolidatable(v: NodeView, nowMs: EpochMs): string | undefined {
  const after = v.pool?.disruption.consolidateAfter ?? null;
  if (after === null) return 'consolidateAfter is Never';
  const init = v.claim.status.conditions.find((c) => c.type === 'Initialized' && c.status === 'True')?.lastTransitionTime;
  const since = v.claim.status.lastPodEventTime ?? init ?? v.claim.creationTimestamp;
  const readyAt = addSeconds(since, after);
  if (nowMs < readyAt) return `not consolidatable yet: consolidateAfter ${after}s since the last pod event (${Math.ceil((readyAt - nowMs) / 1000)}s left)`;
  return undefined;
}

/** Karpenter's v1 order: cheapest to disrupt first; ties by higher price, then name (stable). */
export function byDisruptionCost(a: Candidate, b: Candidate): number {
  return a.disruptionCost - b.disruptionCost || b.price - a.price || (a.nodeClaim.name < b.nodeClaim.name ? -1 : a.nodeClaim.name > b.nodeClaim.name ? 1 : 0);
}
