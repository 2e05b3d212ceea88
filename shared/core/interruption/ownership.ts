/**
 * Which instances nodewright owns: an instance carrying this cluster's ownership tag and a NodePool
 * tag (what CreateFleet writes, reference §1.4), or one a NodeClaim points at through its providerID.
 * The NodePool tag matters: EKS managed node groups also tag their instances
 * `kubernetes.io/cluster/<name>=owned`, and those are never nodewright's to touch.
 */
import type { CloudInstance } from '../ports/cloud-provider';
import type { NodeClaim } from '../model/karpenter';
import { CapacityType, type CapacityTypeValue, Label, Tag } from '../model/labels';

export interface OwnedInstance {
  instanceId: string;
  providerID?: string;
  nodeClaim?: string;
  nodeName?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: CapacityTypeValue;
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
  const claimName = instance.tags[Tag.nodeClaim];
  return {
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    ...(claimName ? { nodeClaim: claimName } : {}),
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
  };
}

/**
 * Index of owned instances by instance id. Cloud data (type, zone, capacity type) wins over claim
 * labels; the claim name and node name come from the claim when one points at the instance.
 */
export function buildOwnershipIndex(clusterName: string, instances: CloudInstance[], nodeClaims: NodeClaim[]): Map<string, OwnedInstance> {
  const index = new Map<string, OwnedInstance>();
  for (const claim of nodeClaims) {
    const id = instanceIdFromProviderID(claim.status.providerID);
    if (id) index.set(id, fromClaim(claim, id));
  }
  for (const instance of instances) {
    if (!isClusterOwnedInstance(instance, clusterName)) continue;
    const claimed = index.get(instance.instanceId);
    index.set(instance.instanceId, { ...claimed, ...fromInstance(instance), ...(claimed?.nodeClaim ? { nodeClaim: claimed.nodeClaim } : {}) });
  }
  return index;
}
