/**
 * EC2 CreateFleet (type instant) answered by an Ec2World: every override of the request's launch templates
 * checked, the cheapest with capacity launched; idempotent on the client token.
 */
import type { CreateFleetCommand, CreateFleetError, CreateFleetInstance } from '@aws-sdk/client-ec2';
import { tagRecord } from './filters';
import { hashHex, type Ec2World, type SimInstance } from './ec2-world';
import type { SimLaunchTemplate } from './ec2-resources';

interface FleetCandidate {
  template: string;
  type: string;
  subnetId: string;
  zone: string;
  price: number;
  /** The override's Priority (prioritized strategies: lower first). */
  priority?: number;
}

const efaDevices = (nics: SimLaunchTemplate['networkInterfaces']) => (nics ?? []).filter((n) => n.type === 'efa' || n.type === 'efa-only').length;

/** What EC2 refuses in a template's interfaces for a type: a network card or device index it lacks, more EFA devices than it has. */
function interfaceProblem(world: Ec2World, type: string, nics: SimLaunchTemplate['networkInterfaces']): string | undefined {
  if (!nics?.length) return undefined;
  const e = world.catalogEntry(type);
  const cards = e?.networkCards ?? 1;
  for (const n of nics) {
    if (n.card >= cards) return `Network card index ${n.card} is not supported for instance type ${type}.`;
    if (n.device >= (e?.networkCardMaxENIs?.[n.card] ?? e?.maxENIs ?? 1))
      return `Device index ${n.device} is not supported on network card ${n.card} for ${type}.`;
  }
  if (efaDevices(nics) > (e?.efaMax ?? 0))
    return `The requested instance type ${type} does not support ${efaDevices(nics)} Elastic Fabric Adapter interface(s).`;
  return undefined;
}

/** Every override of the request checked: those that can launch now, with their price, and an error for each that cannot. */
function fleetCandidates(
  world: Ec2World,
  input: CreateFleetCommand['input'],
  capacityType: SimInstance['capacityType'],
): { candidates: FleetCandidate[]; errors: CreateFleetError[] } {
  const candidates: FleetCandidate[] = [];
  const errors: CreateFleetError[] = [];
  for (const cfg of input.LaunchTemplateConfigs ?? []) {
    const ltName = cfg.LaunchTemplateSpecification?.LaunchTemplateName ?? '';
    const lt = world.launchTemplates.get(ltName);
    for (const o of cfg.Overrides ?? []) {
      const type = String(o.InstanceType ?? '');
      const subnet = world.subnets.find((s) => s.id === o.SubnetId) ?? world.subnets.find((s) => s.zone === o.AvailabilityZone);
      const overrides = {
        LaunchTemplateSpecification: cfg.LaunchTemplateSpecification,
        Overrides: { InstanceType: type as never, SubnetId: o.SubnetId, AvailabilityZone: subnet?.zone ?? o.AvailabilityZone },
      };
      if (!lt) {
        errors.push({
          ErrorCode: 'InvalidLaunchTemplateName.NotFoundException',
          ErrorMessage: `The specified launch template, with template name ${ltName}, does not exist.`,
          LaunchTemplateAndOverrides: overrides,
          Lifecycle: capacityType,
        });
        continue;
      }
      // EC2 checks the template's instance profile at launch: it must exist and carry a role.
      if (lt.instanceProfile !== undefined && !world.instanceProfiles.get(lt.instanceProfile)?.roles.length) {
        errors.push({
          ErrorCode: 'InvalidParameterValue',
          ErrorMessage: `Value (${lt.instanceProfile}) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name`,
          LaunchTemplateAndOverrides: overrides,
          Lifecycle: capacityType,
        });
        continue;
      }
      const price = subnet ? world.price(type, subnet.zone, capacityType) : undefined;
      const nicProblem = interfaceProblem(world, type, lt.networkInterfaces);
      if (nicProblem) {
        errors.push({ ErrorCode: 'InvalidParameterCombination', ErrorMessage: nicProblem, LaunchTemplateAndOverrides: overrides, Lifecycle: capacityType });
      } else if (!subnet || price === undefined) {
        errors.push({
          ErrorCode: 'Unsupported',
          ErrorMessage: `Your requested instance type (${type}) is not supported in your requested Availability Zone.`,
          LaunchTemplateAndOverrides: overrides,
          Lifecycle: capacityType,
        });
      } else if (!world.hasCapacity(type, subnet.zone, capacityType)) {
        errors.push({
          ErrorCode: 'InsufficientInstanceCapacity',
          ErrorMessage: `There is no ${capacityType} capacity for ${type} in ${subnet.zone}.`,
          LaunchTemplateAndOverrides: overrides,
          Lifecycle: capacityType,
        });
      } else {
        candidates.push({
          template: ltName,
          type,
          subnetId: subnet.id,
          zone: subnet.zone,
          price,
          ...(o.Priority !== undefined ? { priority: o.Priority } : {}),
        });
      }
    }
  }
  return { candidates, errors };
}

/** One instant-fleet launch: the cheapest override with capacity (spot price or on-demand price; by Priority when prioritized), else ICE errors per override. */
export function createFleet(world: Ec2World, input: CreateFleetCommand['input']) {
  const token = input.ClientToken;
  if (token) {
    const existing = world.instanceForToken(token);
    if (existing) return fleetAnswer(existing, [], input);
  }
  const capacityType = input.TargetCapacitySpecification?.DefaultTargetCapacityType === 'spot' ? 'spot' : 'on-demand';
  const { candidates, errors } = fleetCandidates(world, input, capacityType);
  // `prioritized` (on-demand) and `capacity-optimized-prioritized` (spot): the override with the lowest Priority
  // first, one without a Priority last (EC2's rule); the sim has no capacity pools to optimize for beyond that.
  const prioritized = input.OnDemandOptions?.AllocationStrategy === 'prioritized' || input.SpotOptions?.AllocationStrategy === 'capacity-optimized-prioritized';
  const rank = (c: FleetCandidate) => (prioritized ? (c.priority ?? Number.MAX_VALUE) : 0);
  candidates.sort((a, b) => rank(a) - rank(b) || a.price - b.price || a.type.localeCompare(b.type) || a.zone.localeCompare(b.zone));
  const chosen = candidates[0];
  if (!chosen) return { FleetId: `fleet-${hashHex('fleet', token ?? '').slice(0, 17)}`, Instances: [], Errors: errors };
  const lt = world.launchTemplates.get(chosen.template);
  const tags = tagRecord(input.TagSpecifications?.find((t) => t.ResourceType === 'instance')?.Tags);
  const instance = world.launch({
    type: chosen.type,
    zone: chosen.zone,
    subnetId: chosen.subnetId,
    capacityType,
    imageId: lt?.imageId ?? 'ami-unknown',
    launchTemplateName: chosen.template,
    securityGroupIds: lt?.securityGroupIds ?? [],
    tags,
    ...(lt?.userData ? { userData: lt.userData } : {}),
    ...(efaDevices(lt?.networkInterfaces) ? { efaInterfaces: efaDevices(lt?.networkInterfaces) } : {}),
    ...(lt?.volumes ? { volumes: lt.volumes } : {}),
    ...(token ? { clientToken: token } : {}),
  });
  return fleetAnswer(instance, errors, input);
}

function fleetAnswer(i: SimInstance, errors: CreateFleetError[], input: CreateFleetCommand['input']) {
  const cfg =
    input.LaunchTemplateConfigs?.find((c) => c.LaunchTemplateSpecification?.LaunchTemplateName === i.launchTemplateName) ?? input.LaunchTemplateConfigs?.[0];
  const launched: CreateFleetInstance = {
    InstanceIds: [i.id],
    InstanceType: i.type as never,
    Lifecycle: i.capacityType,
    LaunchTemplateAndOverrides: {
      LaunchTemplateSpecification: cfg?.LaunchTemplateSpecification,
      Overrides: { InstanceType: i.type as never, SubnetId: i.subnetId, AvailabilityZone: i.zone },
    },
  };
  return { FleetId: `fleet-${hashHex('fleet', i.id).slice(0, 17)}`, Instances: [launched], Errors: errors };
}
