/**
 * Which instances nodewright owns: an instance carrying this cluster's ownership tag and a NodePool
 * tag (what CreateFleet writes, docs/karpenter-reference.md §1.4), or one a NodeClaim points at through its providerID.
 * The NodePool tag matters: EKS managed node groups also tag their instances
 * `kubernetes.io/cluster/<name>=owned`, and those are never nodewright's to touch.
 *
 * Which NodeClaim an instance belongs to is decided by providerID, as Karpenter does: the claim whose
 * `status.providerID` names the instance. The `karpenter.sh/nodeclaim` tag is only a hint, trusted in one
 * case: the claim it names exists, has no providerID yet (CreateFleet returned, the status patch has not
 * landed) and exactly one listed instance carries that tag. An instance tagged with a claim whose providerID
 * names another instance (a stray from a retried launch, a copy, a hand-made instance) belongs to no claim:
 * an interruption for it is dropped, garbage collection reclaims it as an orphan, and the claim's own
 * instance is never touched on its account.
 */
import type { CloudInstance } from '../ports/cloud-provider';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { CapacityType, type CapacityTypeValue, Label, Tag, TaintKey } from '../model/labels';

export interface OwnedInstance {
  instanceId: string;
  providerID?: string;
  nodeClaim?: string;
  nodeName?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: CapacityTypeValue;
  /**
   * A workflow is already taking this node away: its claim is being deleted, or its node carries the
   * `karpenter.sh/disrupted` taint a disruption or termination puts on before draining.
   */
  disrupting?: boolean;
}

/** `aws:///us-east-1a/i-0123…` → `i-0123…`; undefined when it is not an AWS provider id. */
export function instanceIdFromProviderID(providerID: string | undefined): string | undefined {
  if (!providerID) return undefined;
  const match = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]+)$/.exec(providerID);
  return match ? match[1] : undefined;
}

/** True when the instance's tags say this cluster's nodewright (or Karpenter) launched it. */
export function isClusterOwnedInstance(instance: Pick<CloudInstance, 'tags'>, clusterName: string): boolean {
  return instance.tags[`${Tag.clusterPrefix}${clusterName}`] === 'owned' && Tag.nodePool in instance.tags;
}

const capacityTypes: ReadonlySet<string> = new Set(Object.values(CapacityType));

function fromClaim(claim: NodeClaim, instanceId: string): OwnedInstance {
  const capacityType = claim.labels[Label.capacityType];
  return {
    instanceId,
    ...(claim.status.providerID ? { providerID: claim.status.providerID } : {}),
    nodeClaim: claim.name,
    ...(claim.status.nodeName ? { nodeName: claim.status.nodeName } : {}),
    ...(claim.labels[Label.instanceType] ? { instanceType: claim.labels[Label.instanceType] } : {}),
    ...(claim.labels[Label.zone] ? { zone: claim.labels[Label.zone] } : {}),
    ...(capacityType && capacityTypes.has(capacityType) ? { capacityType: capacityType as CapacityTypeValue } : {}),
  };
}

function fromInstance(instance: CloudInstance): OwnedInstance {
  return {
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
  };
}

/**
 * The claim an instance without a claim pointing at it may still belong to: the claim its tag names, when
 * that claim exists, has recorded no providerID yet and no other listed instance carries the same tag.
 */
function launchingClaimByTag(
  instance: Pick<CloudInstance, 'instanceId' | 'tags'>,
  instances: Pick<CloudInstance, 'instanceId' | 'tags' | 'state'>[],
  nodeClaims: NodeClaim[],
): NodeClaim | undefined {
  const name = instance.tags[Tag.nodeClaim];
  if (!name) return undefined;
  const claim = nodeClaims.find((c) => c.name === name);
  if (!claim || claim.status.providerID) return undefined;
  const carriers = instances.filter((i) => i.tags[Tag.nodeClaim] === name && i.state !== 'terminated');
  return carriers.length === 1 && carriers[0].instanceId === instance.instanceId ? claim : undefined;
}

/**
 * Index of owned instances by instance id. Cloud data (type, zone, capacity type) wins over claim
 * labels; the claim (and its node) is the one whose providerID names the instance, or the launching claim
 * its tag names (see launchingClaimByTag) — never a claim whose providerID names another instance.
 */
export function buildOwnershipIndex(
  clusterName: string,
  instances: CloudInstance[],
  nodeClaims: NodeClaim[],
  nodes: Pick<Node, 'name' | 'taints'>[] = [],
): Map<string, OwnedInstance> {
  const index = new Map<string, OwnedInstance>();
  const tainted = new Set(nodes.filter((n) => n.taints.some((t) => t.key === TaintKey.disrupted)).map((n) => n.name));
  for (const claim of nodeClaims) {
    const id = instanceIdFromProviderID(claim.status.providerID);
    const disrupting =
      claim.deletionTimestamp !== undefined ||
      conditionIsTrue(claim, 'InstanceTerminating') ||
      (claim.status.nodeName !== undefined && tainted.has(claim.status.nodeName));
    if (id) index.set(id, { ...fromClaim(claim, id), ...(disrupting ? { disrupting } : {}) });
  }
  const owned = instances.filter((i) => isClusterOwnedInstance(i, clusterName));
  for (const instance of owned) {
    const claimed = index.get(instance.instanceId);
    if (claimed?.nodeClaim) {
      index.set(instance.instanceId, { ...claimed, ...fromInstance(instance), nodeClaim: claimed.nodeClaim });
      continue;
    }
    const launching = launchingClaimByTag(instance, owned, nodeClaims);
    index.set(instance.instanceId, { ...fromInstance(instance), ...(launching ? { nodeClaim: launching.name } : {}) });
  }
  return index;
}
