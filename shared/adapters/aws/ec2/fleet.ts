import { createHash } from 'node:crypto';
import type { CreateFleetCommandInput, CreateFleetError, CreateFleetInstance } from '@aws-sdk/client-ec2';
import type { LaunchRequest } from '../../../core/ports/cloud-provider';
import type { OfferingKey } from '../../../core/ports/state-store';
import { Annotation, CapacityType, type CapacityTypeValue } from '../../../core/model/labels';
import { IceErrorCodes, SPOT_ROLE_MISSING } from '../errors';
import { recordToTags } from './tags';
import { templateKey, type FleetPlan, type PlannedOverride } from './fleet-plan';

/** CreateFleet client tokens are at most 64 ASCII characters. */
const MAX_CLIENT_TOKEN_LENGTH = 64;

/**
 * The CreateFleet ClientToken for a NodeClaim: its name (plus `suffix` for a deliberate second attempt),
 * shortened with a hash when longer than 64 characters.
 */
export function clientTokenFor(nodeClaimName: string, suffix = ''): string {
  const token = nodeClaimName + suffix;
  if (token.length <= MAX_CLIENT_TOKEN_LENGTH) return token;
  const hash = createHash('sha256').update(nodeClaimName).digest('hex').slice(0, 16);
  return `${nodeClaimName.slice(0, MAX_CLIENT_TOKEN_LENGTH - hash.length - 1 - suffix.length)}-${hash}${suffix}`;
}

/** The CreateFleet request: instant, one instance, overrides grouped per launch template (one per AMI and EFA count). */
export function createFleetInput(
  req: LaunchRequest,
  plan: FleetPlan,
  templateByImage: ReadonlyMap<string, string>,
  tags: Record<string, string>,
  clientToken = clientTokenFor(req.nodeClaim.name),
): CreateFleetCommandInput {
  const byTemplate = new Map<string, PlannedOverride[]>();
  for (const o of plan.overrides) {
    const lt = templateByImage.get(templateKey(o))!;
    byTemplate.set(lt, [...(byTemplate.get(lt) ?? []), o]);
  }
  const spot = plan.capacityType === CapacityType.spot;
  const tagList = recordToTags(tags);
  // A NodeOverlay price on the claim's types: EC2 launches by those prices (Karpenter: prioritized on-demand,
  // capacity-optimized-prioritized spot), each override's Priority its overlaid price (lower = first).
  const overlaid = req.nodeClaim.annotations?.[Annotation.priceOverlayApplied] !== undefined;
  const priority = (o: PlannedOverride) =>
    req.instanceTypes.find((t) => t.name === o.instanceType)?.offerings.find((of) => of.zone === o.zone && of.capacityType === o.capacityType)?.price;
  const strategy = overlaid
    ? spot
      ? { SpotOptions: { AllocationStrategy: 'capacity-optimized-prioritized' as const } }
      : { OnDemandOptions: { AllocationStrategy: 'prioritized' as const } }
    : spot
      ? { SpotOptions: { AllocationStrategy: 'price-capacity-optimized' as const } }
      : { OnDemandOptions: { AllocationStrategy: 'lowest-price' as const } };
  return {
    Type: 'instant',
    ClientToken: clientToken,
    TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: spot ? 'spot' : 'on-demand' },
    ...strategy,
    LaunchTemplateConfigs: [...byTemplate].map(([name, overrides]) => ({
      LaunchTemplateSpecification: { LaunchTemplateName: name, Version: '$Latest' },
      Overrides: overrides.map((o) => {
        const p = overlaid ? priority(o) : undefined;
        return { InstanceType: o.instanceType as never, SubnetId: o.subnetId, AvailabilityZone: o.zone, ...(p !== undefined ? { Priority: p } : {}) };
      }),
    })),
    TagSpecifications: (['instance', 'volume', 'fleet'] as const).map((ResourceType) => ({ ResourceType, Tags: tagList })),
    ...(req.nodeClass.context ? { Context: req.nodeClass.context } : {}),
  };
}

/** Offerings to mark unavailable for the ICE-coded errors of a CreateFleet answer (docs/karpenter-reference.md §3.4). */
export function iceOfferings(errors: CreateFleetError[], plan: FleetPlan): { offering: OfferingKey; reason: string }[] {
  const out = new Map<string, { offering: OfferingKey; reason: string }>();
  const add = (instanceType: string, zone: string, capacityType: CapacityTypeValue, reason: string) =>
    out.set(`${capacityType}:${instanceType}:${zone}`, { offering: { instanceType, zone, capacityType }, reason });
  for (const e of errors) {
    const code = e.ErrorCode ?? '';
    if (!IceErrorCodes.has(code)) continue;
    const ov = e.LaunchTemplateAndOverrides?.Overrides;
    const capacityType: CapacityTypeValue = e.Lifecycle === 'spot' ? 'spot' : e.Lifecycle === 'on-demand' ? 'on-demand' : plan.capacityType;
    if (code === SPOT_ROLE_MISSING) {
      for (const p of plan.overrides) if (p.capacityType === 'spot') add(p.instanceType, p.zone, 'spot', code);
      continue;
    }
    if (code === 'InsufficientFreeAddressesInSubnet' && ov?.SubnetId) {
      // The subnet is full: every planned type in it is unavailable.
      for (const p of plan.overrides) if (p.subnetId === ov.SubnetId) add(p.instanceType, p.zone, capacityType, code);
      continue;
    }
    const zone = ov?.AvailabilityZone ?? plan.overrides.find((p) => p.subnetId === ov?.SubnetId)?.zone;
    if (ov?.InstanceType && zone) add(ov.InstanceType, zone, capacityType, code);
  }
  return [...out.values()];
}

/** The launched instance of an instant fleet, with where and how it was placed. */
export function launchedInstance(instances: CreateFleetInstance[] | undefined, plan: FleetPlan): { instanceId: string; override: PlannedOverride } | undefined {
  for (const i of instances ?? []) {
    const id = i.InstanceIds?.[0];
    if (!id) continue;
    const ov = i.LaunchTemplateAndOverrides?.Overrides;
    const type = i.InstanceType ?? ov?.InstanceType;
    const planned =
      plan.overrides.find((p) => p.instanceType === type && (p.subnetId === ov?.SubnetId || p.zone === ov?.AvailabilityZone)) ??
      plan.overrides.find((p) => p.instanceType === type) ??
      plan.overrides[0];
    const capacityType: CapacityTypeValue = i.Lifecycle === 'spot' ? 'spot' : i.Lifecycle === 'on-demand' ? 'on-demand' : plan.capacityType;
    return {
      instanceId: id,
      override: {
        ...planned,
        instanceType: type ?? planned.instanceType,
        subnetId: ov?.SubnetId ?? planned.subnetId,
        zone: ov?.AvailabilityZone ?? planned.zone,
        capacityType,
      },
    };
  }
  return undefined;
}
