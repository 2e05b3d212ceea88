import type { NodeSelectorRequirement } from '../../../core/model/kube';
import { CapacityType, Label, type CapacityTypeValue } from '../../../core/model/labels';
import { Resource } from '../../../core/model/resources';
import type { LaunchRequest } from '../../../core/ports/cloud-provider';
import type { InstanceType } from '../../../core/instance-types/types';
import { InsufficientCapacityError } from '../../../core/errors';

/** CreateFleet accepts at most this many overrides per request (Karpenter truncates the same way). */
const MAX_FLEET_OVERRIDES = 60;

export interface PlannedOverride {
  instanceType: string;
  zone: string;
  subnetId: string;
  arch: 'amd64' | 'arm64';
  /** The AMI this type launches with; one launch template per AMI (and EFA count). */
  imageId: string;
  /**
   * EFA interfaces the launch template attaches: the type's `vpc.amazonaws.com/efa` when the claim requests EFA and
   * the node class lists no networkInterfaces of its own (Karpenter's getEFACountForInstance); else 0.
   */
  efaCount: number;
  capacityType: CapacityTypeValue;
  price: number;
}

/** The launch template an override uses: one per AMI and EFA count. */
export const templateKey = (o: Pick<PlannedOverride, 'imageId' | 'efaCount'>): string => (o.efaCount > 0 ? `${o.imageId}+efa${o.efaCount}` : o.imageId);

export interface FleetPlan {
  capacityType: CapacityTypeValue;
  overrides: PlannedOverride[];
}

const EXOTIC_KEYS: ReadonlySet<string> = new Set([
  Label.instanceGpuName,
  Label.instanceGpuManufacturer,
  Label.instanceGpuCount,
  Label.instanceGpuMemory,
  Label.instanceAcceleratorName,
  Label.instanceAcceleratorManufacturer,
  Label.instanceAcceleratorCount,
]);
const EXOTIC_RESOURCES = [Resource.nvidiaGpu, Resource.amdGpu, Resource.awsNeuron, Resource.habanaGaudi];

/** The values a requirement set allows for `key` among `universe` (no requirement = all). */
function allowedValues(reqs: NodeSelectorRequirement[], key: string, universe: readonly string[]): string[] {
  let allowed = [...universe];
  for (const r of reqs) {
    if (r.key !== key) continue;
    if (r.operator === 'In') allowed = allowed.filter((v) => r.values?.includes(v));
    else if (r.operator === 'NotIn') allowed = allowed.filter((v) => !r.values?.includes(v));
    else if (r.operator === 'DoesNotExist') allowed = [];
  }
  return allowed;
}

function exoticRequested(req: LaunchRequest): boolean {
  const reqs = req.nodeClaim.spec.requirements;
  if (reqs.some((r) => EXOTIC_KEYS.has(r.key) && r.operator !== 'DoesNotExist' && r.operator !== 'NotIn')) return true;
  if (reqs.some((r) => r.key === Label.instanceSize && r.operator === 'In' && r.values?.some((v) => v.includes('metal')))) return true;
  const requests = req.nodeClaim.spec.resources.requests;
  return EXOTIC_RESOURCES.some((r) => (requests[r] ?? 0) > 0);
}

/**
 * Which (type × zonal subnet) overrides to send, cheapest first (docs/karpenter-reference.md §2.8): compatible and available
 * offerings only; exotic types dropped unless requested or nothing else is left; spot preferred when the
 * claim allows it and it is offered; spot offerings dearer than the cheapest on-demand dropped; at most 60. A claim
 * with minValues keeps its exotic types and dearer spot offerings (Karpenter's filters stand aside: the flexibility
 * minValues asks for is already in the claim's types, and filtering could leave fewer than it requires).
 */
export function planFleet(
  req: LaunchRequest,
  subnetsByZone: ReadonlyMap<string, { id: string }>,
  imageFor: (type: InstanceType) => string | undefined,
): FleetPlan {
  const reqs = req.nodeClaim.spec.requirements;
  const capacityTypes = allowedValues(reqs, Label.capacityType, [CapacityType.spot, CapacityType.onDemand]) as CapacityTypeValue[];
  const zones = new Set(allowedValues(reqs, Label.zone, [...subnetsByZone.keys()]));
  const typeNames = new Set(
    allowedValues(
      reqs,
      Label.instanceType,
      req.instanceTypes.map((t) => t.name),
    ),
  );

  const efaWanted = !req.nodeClass.networkInterfaces && (req.nodeClaim.spec.resources.requests[Resource.efa] ?? 0) > 0;
  let types = req.instanceTypes.filter((t) => typeNames.has(t.name) && imageFor(t) !== undefined);
  const candidates = (list: typeof types) =>
    list.flatMap((t) =>
      t.offerings
        .filter((o) => o.available && zones.has(o.zone) && capacityTypes.includes(o.capacityType) && Number.isFinite(o.price))
        .map((o): PlannedOverride => ({
          instanceType: t.name,
          zone: o.zone,
          subnetId: subnetsByZone.get(o.zone)!.id,
          arch: t.arch,
          imageId: imageFor(t)!,
          efaCount: efaWanted ? (t.capacity[Resource.efa] ?? 0) : 0,
          capacityType: o.capacityType,
          price: o.price,
        })),
    );

  const minValues = reqs.some((r) => r.minValues !== undefined);
  if (!minValues && !exoticRequested(req)) {
    const ordinary = types.filter((t) => !t.exotic);
    if (candidates(ordinary).length > 0) types = ordinary;
  }
  let offers = candidates(types);
  const onDemandPrices = offers.filter((o) => o.capacityType === CapacityType.onDemand).map((o) => o.price);
  const cheapestOnDemand = onDemandPrices.length && !minValues ? Math.min(...onDemandPrices) : Infinity;
  offers = offers.filter((o) => o.capacityType !== CapacityType.spot || o.price <= cheapestOnDemand);
  const capacityType: CapacityTypeValue = offers.some((o) => o.capacityType === CapacityType.spot) ? CapacityType.spot : CapacityType.onDemand;
  offers = offers.filter((o) => o.capacityType === capacityType);
  // Stable sort keeps the caller's type order (and zone order) among equal prices.
  const overrides = offers
    .map((o, i) => ({ o, i }))
    .sort((a, b) => a.o.price - b.o.price || a.i - b.i)
    .map(({ o }) => o)
    .slice(0, MAX_FLEET_OVERRIDES);
  if (overrides.length === 0) {
    throw new InsufficientCapacityError(
      `nodeclaim ${req.nodeClaim.name}: no available offering among ${req.instanceTypes.length} instance type(s) for capacity type(s) [${capacityTypes.join(', ')}] in zone(s) [${[...zones].join(', ')}]`,
    );
  }
  return { capacityType, overrides };
}
