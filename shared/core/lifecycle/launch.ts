/** Launching a NodeClaim (docs/karpenter-reference.md §6.1) and what happens when EC2 has no capacity for it. */
import { overlaidPoolTypes } from '../instance-types/overlays';
import { InsufficientCapacityError, isInsufficientCapacityError, isNodeClassNotReadyError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import { NodeClassHashVersion, nodeClassHash } from '../model/hash';
import { conditionIsTrue, type EC2NodeClass, type NodeClaim } from '../model/karpenter';
import { Annotation, Finalizer, Label } from '../model/labels';
import type { OfferingKey } from '../ports';
import { condition, instanceTypesForClaim, poolAndClassOf, requireNodeClaim } from './claims';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import { claimStep, insufficientCapacity, launchUnauthorized, nodeClassNotReady, recordEvents } from './events';

export interface LaunchResult {
  nodeClaimName: string;
  providerID: string;
  instanceType: string;
  zone: string;
  capacityType: string;
}

const ICE_REASON = 'InsufficientCapacity';

/**
 * CloudProvider.create for the claim, then the claim's status (providerID, capacity, Launched=True).
 * Runs once: a claim already launched is returned as is, so a retried Task never launches twice.
 */
export async function launchNodeClaim(
  deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster' | 'log' | 'metrics'>,
  nodeClaimName: string,
): Promise<LaunchResult> {
  const claim = await requireNodeClaim(deps.cluster, nodeClaimName);
  if (conditionIsTrue(claim, 'Launched') && claim.status.providerID) {
    return {
      nodeClaimName,
      providerID: claim.status.providerID,
      instanceType: claim.labels[Label.instanceType] ?? '',
      zone: claim.labels[Label.zone] ?? '',
      capacityType: claim.labels[Label.capacityType] ?? '',
    };
  }
  // The claim's NodePool and EC2NodeClass: those two lists only (tens of objects), never the pods.
  const objects = await deps.cluster.listObjects(['nodePools', 'nodeClasses', 'nodeOverlays']);
  const { nodePool, nodeClass } = poolAndClassOf(objects, claim.nodePool, claim.spec.nodeClassRef.name);
  // Only the claim's instance types (its `In` requirement names them; a user's claim may not): one read by name.
  const named = claim.spec.requirements.find((r) => r.key === Label.instanceType && r.operator === 'In')?.values;
  // Overlaid as the provisioner saw them (Karpenter's Create applies the overlay store): a priced claim launches by those prices.
  const types = overlaidPoolTypes(objects.nodeOverlays, nodePool, await deps.cloud.instanceTypes(nodeClass, nodePool, named?.length ? named : undefined));
  const instanceTypes = instanceTypesForClaim(claim, types);
  let instance;
  try {
    if (instanceTypes.length === 0) throw new InsufficientCapacityError(`no instance type of nodeclaim "${nodeClaimName}" is available`);
    instance = await deps.cloud.create({ nodeClaim: claim, nodePool, nodeClass, instanceTypes });
  } catch (e) {
    deps.metrics.count('karpenter_cloudprovider_errors_total', {
      controller: 'nodeclaim.lifecycle',
      method: 'Create',
      provider: 'aws',
      error: e instanceof Error ? e.name : 'Error',
    });
    if (isInsufficientCapacityError(e)) {
      // Step Functions only carries the error name and message: keep the offerings on the claim for MarkOfferingUnavailable.
      await deps.cluster.patchNodeClaimStatus(nodeClaimName, {
        conditions: [condition('Launched', 'False', deps.clock.now(), ICE_REASON, JSON.stringify(e.offerings ?? []))],
      });
      await recordEvents(deps, [insufficientCapacity(claim, e.message)]);
    } else if (isNodeClassNotReadyError(e)) {
      await recordEvents(deps, [nodeClassNotReady(claim, e.message)]);
    } else if (e instanceof Error && e.name === 'CloudProviderUnauthorizedError') {
      await recordEvents(deps, [launchUnauthorized(claim, e.message)]);
    }
    throw e;
  }
  const type = instanceTypes.find((it) => it.name === instance.instanceType);
  await deps.cluster.patchNodeClaimMetadata(nodeClaimName, {
    labels: launchedClaimLabels(claim, type, instance),
    annotations: launchedClaimAnnotations(nodeClass),
    // A claim applied by a user has no termination finalizer yet: deleting it must drain and terminate, as in Karpenter.
    ...(claim.finalizers.includes(Finalizer.termination) || claim.deletionTimestamp !== undefined
      ? {}
      : { finalizers: [...claim.finalizers, Finalizer.termination] }),
  });
  await deps.cluster.patchNodeClaimStatus(nodeClaimName, {
    providerID: instance.providerID,
    ...(instance.imageId ? { imageID: instance.imageId } : {}),
    ...(type ? { capacity: type.capacity, allocatable: type.allocatable } : {}),
    conditions: [condition('Launched', 'True', deps.clock.now())],
  });
  await recordEvents(deps, [
    claimStep(claim, 'Launched', `Launched ${instance.providerID} (${instance.instanceType}, ${instance.zone}, ${instance.capacityType})`),
  ]);
  deps.log.info('launched nodeclaim', {
    nodeclaim: nodeClaimName,
    nodepool: claim.nodePool,
    'provider-id': instance.providerID,
    'instance-type': instance.instanceType,
    zone: instance.zone,
    'capacity-type': instance.capacityType,
  });
  return { nodeClaimName, providerID: instance.providerID, instanceType: instance.instanceType, zone: instance.zone, capacityType: instance.capacityType };
}

/**
 * The labels a launched NodeClaim carries, as Karpenter's launch writes them (the cloud provider's labels, then the
 * claim's own, which win): every single-valued label of the instance type (family, cpu, memory, os, region …),
 * the instance's zone, zone id, and capacity type. Registration copies them onto the Node, so a later round
 * matches pods to the claim or node on exactly these labels.
 */
export function launchedClaimLabels(
  claim: Pick<NodeClaim, 'labels'>,
  type: Pick<InstanceType, 'labels' | 'offerings'> | undefined,
  instance: { instanceType: string; zone: string; capacityType: string },
): Record<string, string> {
  const zoneId = type?.offerings.find((o) => o.zone === instance.zone && o.zoneId !== undefined)?.zoneId;
  return {
    ...type?.labels,
    [Label.instanceType]: instance.instanceType,
    [Label.zone]: instance.zone,
    ...(zoneId ? { [Label.zoneId]: zoneId } : {}),
    [Label.capacityType]: instance.capacityType,
    ...claim.labels,
  };
}

/** The EC2NodeClass hash the claim was launched with (static drift compares it; Karpenter's Create writes it on every claim). */
export function launchedClaimAnnotations(nodeClass: EC2NodeClass): Record<string, string> {
  return { [Annotation.nodeClassHash]: nodeClass.hash ?? nodeClassHash(nodeClass), [Annotation.nodeClassHashVersion]: NodeClassHashVersion };
}

function offeringsFromCondition(message: string | undefined): OfferingKey[] {
  if (!message) return [];
  try {
    const parsed: unknown = JSON.parse(message);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (o): o is OfferingKey =>
        typeof o === 'object' && o !== null && typeof o.instanceType === 'string' && typeof o.zone === 'string' && typeof o.capacityType === 'string',
    );
  } catch {
    return [];
  }
}

/**
 * After InsufficientCapacityError: mark the failed offerings unavailable (ICE cache, 3 min) and delete the
 * claim, so the next plan chooses again among what is left.
 */
export async function markOfferingUnavailable(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>,
  nodeClaimName: string,
  errorName = ICE_REASON,
): Promise<{ nodeClaimName: string; markedUnavailable: number }> {
  const claim = await deps.cluster.getNodeClaim(nodeClaimName);
  const launched = claim?.status.conditions.find((c) => c.type === 'Launched');
  const offerings = launched?.reason === ICE_REASON ? offeringsFromCondition(launched.message) : [];
  for (const o of offerings) {
    await deps.store.markUnavailable(
      { instanceType: o.instanceType, zone: o.zone, capacityType: o.capacityType },
      LifecycleTimings.unavailableOfferingTtlSeconds,
      errorName,
    );
  }
  if (claim) {
    if (claim.finalizers.length) await deps.cluster.patchNodeClaimMetadata(nodeClaimName, { finalizers: [] });
    await deps.cluster.deleteNodeClaim(nodeClaimName);
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'provisioning',
    action: 'launch-failed',
    reason: errorName,
    nodeClaims: [nodeClaimName],
    detail: { offerings },
  });
  deps.log.warn('deleted nodeclaim after failed launch', {
    nodeclaim: nodeClaimName,
    nodepool: claim?.nodePool,
    reason: errorName,
    'unavailable-offerings': offerings.length,
  });
  return { nodeClaimName, markedUnavailable: offerings.length };
}
