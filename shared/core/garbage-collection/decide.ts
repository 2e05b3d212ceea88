/**
 * Garbage-collection decisions (docs/karpenter-reference.md §6.2 liveness, §6.5): pure, from one read of the cloud
 * and the cluster. The handler performs the actions and confirms each with a targeted read first: the instance's
 * NodeClaim by name (GET) before terminating an orphan, the claim's instance by id before deleting the claim —
 * because a list can lag behind a fresh launch (EC2's eventual consistency) and can leave out a claim this version
 * cannot read.
 */
import type { CloudInstance } from '../ports/cloud-provider';
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Tag } from '../model/labels';
import { instanceIdFromProviderID, isClusterOwnedInstance } from '../interruption/ownership';
import { LifecycleTimings } from '../lifecycle/deps';
import type { EpochMs } from '../time';

export interface GarbageCollectionTimings {
  /** An owned instance with no NodeClaim is left alone this long after launch (Karpenter: 30 s). */
  orphanGracePeriodMs: number;
  /** A claim that never launched is deleted this long after creation (Karpenter: 5 min). */
  launchTimeoutMs: number;
  /** A launched claim that never registered is terminated and deleted this long after launch (Karpenter: 15 min). */
  registrationTimeoutMs: number;
  /**
   * Extra wait past a deadline before garbage collection acts, so the `launch` workflow, which enforces
   * the same deadline itself, always goes first; garbage collection is the backstop.
   */
  deadlineMarginMs: number;
}

const DEFAULT_GC_TIMINGS: GarbageCollectionTimings = {
  orphanGracePeriodMs: 30_000,
  launchTimeoutMs: 5 * 60_000,
  registrationTimeoutMs: LifecycleTimings.registrationTimeoutMs,
  deadlineMarginMs: 60_000,
};

export interface GarbageCollectionInput {
  clusterName: string;
  now: EpochMs;
  /** Instances the cloud provider lists for this cluster (not terminated). */
  instances: CloudInstance[];
  nodeClaims: NodeClaim[];
  nodes: Node[];
  timings?: Partial<GarbageCollectionTimings>;
}

export type GarbageCollectionAction =
  /**
   * Owned instance no listed claim owns, past the grace period: unless a GET of `nodeClaim` (the claim its tag
   * names) finds that claim still owning it or unreadable, terminate it and delete its Node.
   */
  | { type: 'terminateOrphanInstance'; instanceId: string; providerID: string; nodeName?: string; ageMs: number; nodeClaim?: string }
  /**
   * Launched claim whose instance is no longer listed and whose Node is not Ready: confirm by id, then delete claim
   * and Node. EC2 not knowing the id only confirms it once `notFoundIsGone` (launched longer ago than the
   * registration timeout): before that, DescribeInstances may simply not show the new instance yet.
   */
  | { type: 'removeClaimWithoutInstance'; nodeClaim: string; providerID: string; nodeName?: string; notFoundIsGone: boolean }
  /** Claim never launched within the launch timeout (measured from creation): delete it. */
  | { type: 'launchTimeout'; nodeClaim: string; ageMs: number }
  /** Claim launched but never registered within the registration timeout: terminate its instance, delete claim and Node. */
  | { type: 'registrationTimeout'; nodeClaim: string; providerID?: string; nodeName?: string; ageMs: number };

function isTrue(claim: NodeClaim, type: string): boolean {
  return claim.status.conditions.some((c) => c.type === type && c.status === 'True');
}

function launchedAt(claim: NodeClaim): EpochMs {
  const launched = claim.status.conditions.find((c) => c.type === 'Launched' && c.status === 'True');
  return launched?.lastTransitionTime ?? claim.creationTimestamp;
}

function nodeFor(claim: NodeClaim, nodesByProviderID: Map<string, Node>, nodesByName: Map<string, Node>): Node | undefined {
  return (
    (claim.status.providerID ? nodesByProviderID.get(claim.status.providerID) : undefined) ??
    (claim.status.nodeName ? nodesByName.get(claim.status.nodeName) : undefined)
  );
}

export function decideGarbageCollection(input: GarbageCollectionInput): GarbageCollectionAction[] {
  const timings = { ...DEFAULT_GC_TIMINGS, ...input.timings };
  const { now } = input;
  const actions: GarbageCollectionAction[] = [];
  const nodesByProviderID = new Map(input.nodes.filter((n) => n.providerID).map((n) => [n.providerID as string, n]));
  const nodesByName = new Map(input.nodes.map((n) => [n.name, n]));
  const launchingClaims = new Set(input.nodeClaims.filter((c) => !c.status.providerID).map((c) => c.name));
  const claimedInstanceIds = new Set(input.nodeClaims.map((c) => instanceIdFromProviderID(c.status.providerID)).filter((id): id is string => !!id));
  const listedInstanceIds = new Set(input.instances.map((i) => i.instanceId));

  // 1. Orphan instances: ours by tag, no claim's providerID names them, older than the grace period.
  for (const instance of input.instances) {
    if (!isClusterOwnedInstance(instance, input.clusterName)) continue;
    if (instance.state === 'shutting-down' || instance.state === 'terminated') continue;
    if (claimedInstanceIds.has(instance.instanceId)) continue;
    // A claim that launched this instance but has not recorded its providerID yet may still own it (its
    // tag is the only link until the status patch lands). A claim whose providerID names another instance
    // does not: this one is a stray carrying its tag and is reclaimed like any orphan.
    const taggedClaim = instance.tags[Tag.nodeClaim];
    if (taggedClaim && launchingClaims.has(taggedClaim)) continue;
    const ageMs = now - instance.launchTime;
    if (ageMs < timings.orphanGracePeriodMs) continue;
    const node = nodesByProviderID.get(instance.providerID);
    actions.push({
      type: 'terminateOrphanInstance',
      instanceId: instance.instanceId,
      providerID: instance.providerID,
      ...(node ? { nodeName: node.name } : {}),
      ageMs,
      ...(taggedClaim ? { nodeClaim: taggedClaim } : {}),
    });
  }

  // 2. Claims: never one being deleted (the terminate flow owns it), never one within its deadlines.
  for (const claim of input.nodeClaims) {
    if (claim.deletionTimestamp !== undefined) continue;
    const node = nodeFor(claim, nodesByProviderID, nodesByName);
    const nodeName = node?.name ?? claim.status.nodeName;
    const ageMs = now - claim.creationTimestamp;
    const providerID = claim.status.providerID;
    const launched = isTrue(claim, 'Launched') || !!providerID;
    const registered = isTrue(claim, 'Registered');

    if (!launched) {
      if (ageMs >= timings.launchTimeoutMs + timings.deadlineMarginMs) actions.push({ type: 'launchTimeout', nodeClaim: claim.name, ageMs });
      continue;
    }
    const instanceId = instanceIdFromProviderID(providerID);
    const listed = instanceId !== undefined && listedInstanceIds.has(instanceId);
    const sinceLaunchMs = now - launchedAt(claim);
    if (providerID && !listed && sinceLaunchMs >= timings.orphanGracePeriodMs && !node?.ready) {
      const notFoundIsGone = sinceLaunchMs >= timings.registrationTimeoutMs;
      actions.push({ type: 'removeClaimWithoutInstance', nodeClaim: claim.name, providerID, ...(nodeName ? { nodeName } : {}), notFoundIsGone });
      continue;
    }
    if (!registered && sinceLaunchMs >= timings.registrationTimeoutMs + timings.deadlineMarginMs) {
      actions.push({ type: 'registrationTimeout', nodeClaim: claim.name, ...(providerID ? { providerID } : {}), ...(nodeName ? { nodeName } : {}), ageMs });
    }
  }
  return actions;
}
