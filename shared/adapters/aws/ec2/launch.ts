/**
 * Launching one NodeClaim on EC2 (docs/karpenter-reference.md §3): CreateFleet over the fleet plan's overrides
 * with a launch template per image (recreated once when deleted behind our back), ICE marks for offerings
 * without capacity, and adopting what an earlier attempt with the same ClientToken launched.
 */
import { CreateFleetCommand, type CreateFleetCommandOutput, type EC2Client } from '@aws-sdk/client-ec2';
import type { EC2NodeClass } from '../../../core/model/karpenter';
import { Label, Tag } from '../../../core/model/labels';
import type { Clock } from '../../../core/ports/clock';
import type { CloudInstance, LaunchRequest } from '../../../core/ports/cloud-provider';
import type { StateStore } from '../../../core/ports/state-store';
import { InsufficientCapacityError } from '../../../core/errors';
import type { EksClusterInfo } from '../eks/describe-cluster';
import { awsErrorCode, IceErrorCodes, LaunchTemplateNotFoundCodes, mapAwsError } from '../errors';
import { amiFor } from './amis';
import { clientTokenFor, createFleetInput, iceOfferings, launchedInstance } from './fleet';
import { planFleet, templateKey, type FleetPlan } from './fleet-plan';
import { describeInstances, providerIdFor } from './instances';
import type { LaunchTemplates } from './launch-templates';
import type { NodeClassResolver, ResolvedNodeClass } from './node-class-resolver';
import { subnetPerZone } from './selectors';
import { clusterTagKey, launchTags } from './tags';
import { renderUserData } from './user-data';

/** ICE marks live 3 minutes (docs/karpenter-reference.md §3.4). */
const ICE_TTL_SECONDS = 180;

export interface FleetLauncherDeps {
  ec2: EC2Client;
  clusterName: string;
  stateStore: StateStore;
  clock: Pick<Clock, 'now'>;
  resolver: NodeClassResolver;
  templates: LaunchTemplates;
  /** Endpoint, CA, version and service CIDR for the user data (not read for amiFamily Custom). */
  cluster: () => Promise<EksClusterInfo>;
  /** The instance profile the node class launches with. */
  instanceProfile: (nodeClass: EC2NodeClass) => Promise<string>;
}

export class FleetLauncher {
  constructor(private readonly deps: FleetLauncherDeps) {}

  /** Launches the claim's instance; InsufficientCapacityError (after marking the offerings) when no offering had capacity. */
  async launch(req: LaunchRequest): Promise<CloudInstance> {
    const { nodeClaim, nodePool, nodeClass } = req;
    const resolved = await this.deps.resolver.resolve(nodeClass);
    const plan = planFleet(req, subnetPerZone(resolved.subnets), (t) => amiFor(resolved.amis, t)?.id);
    const tags = launchTags({
      clusterName: this.deps.clusterName,
      nodeClassTags: nodeClass.tags,
      nodePool: nodePool?.name ?? '',
      nodeClass: nodeClass.name,
      nodeClaim: nodeClaim.name,
    });
    // A launch template deleted behind our back (LaunchTemplateNotFound) is recreated once.
    const attempt = async (recreate: boolean): Promise<CreateFleetCommandOutput | undefined> => {
      const templateByImage = await this.ensureTemplates(req, resolved, plan, recreate);
      try {
        // EC2 replays the answer of a known token, so the attempt after recreating templates needs its own.
        const res = await this.createFleet(req, plan, templateByImage, tags, clientTokenFor(nodeClaim.name, recreate ? '-lt' : ''));
        const missing = !res.Instances?.some((i) => i.InstanceIds?.length) && res.Errors?.some((e) => LaunchTemplateNotFoundCodes.has(e.ErrorCode ?? ''));
        return missing && !recreate ? undefined : res;
      } catch (e) {
        if (!recreate && LaunchTemplateNotFoundCodes.has(awsErrorCode(e) ?? '')) return undefined;
        throw LaunchTemplateNotFoundCodes.has(awsErrorCode(e) ?? '') ? mapAwsError(e, `CreateFleet for nodeclaim ${nodeClaim.name}`) : e;
      }
    };
    const out = (await attempt(false)) ?? (await attempt(true))!;
    const marks = iceOfferings(out.Errors ?? [], plan);
    await Promise.all(marks.map((m) => this.deps.stateStore.markUnavailable(m.offering, ICE_TTL_SECONDS, m.reason)));
    const launched = launchedInstance(out.Instances, plan);
    if (!launched) {
      const errors = out.Errors ?? [];
      const summary =
        errors
          .map((e) => `${e.ErrorCode}: ${e.ErrorMessage}`)
          .slice(0, 5)
          .join('; ') || 'no instance and no error returned';
      if (errors.length === 0 || errors.every((e) => IceErrorCodes.has(e.ErrorCode ?? ''))) {
        throw new InsufficientCapacityError(
          `CreateFleet for nodeclaim ${nodeClaim.name}: ${summary}`,
          marks.map((m) => m.offering),
        );
      }
      const first = errors.find((e) => !IceErrorCodes.has(e.ErrorCode ?? ''))!;
      throw mapAwsError(
        Object.assign(new Error(first.ErrorMessage ?? summary), { name: first.ErrorCode ?? 'CreateFleetError' }),
        `CreateFleet for nodeclaim ${nodeClaim.name}`,
      );
    }
    const { instanceId, override } = launched;
    return {
      instanceId,
      providerID: providerIdFor(override.zone, instanceId),
      instanceType: override.instanceType,
      zone: override.zone,
      capacityType: override.capacityType,
      imageId: override.imageId,
      subnetId: override.subnetId,
      securityGroupIds: resolved.securityGroups.map((g) => g.id),
      launchTime: this.deps.clock.now(),
      state: 'pending',
      tags,
    };
  }

  private async createFleet(
    req: LaunchRequest,
    plan: FleetPlan,
    templateByImage: Map<string, string>,
    tags: Record<string, string>,
    clientToken: string,
  ): Promise<CreateFleetCommandOutput> {
    try {
      return await this.deps.ec2.send(new CreateFleetCommand(createFleetInput(req, plan, templateByImage, tags, clientToken)));
    } catch (e) {
      const code = awsErrorCode(e);
      if (code === 'IdempotentParameterMismatch') {
        // Same ClientToken, different request: an earlier attempt for this claim already launched.
        const existing = await this.findByNodeClaim(req.nodeClaim.name, req.nodeClaim.creationTimestamp);
        if (existing)
          return {
            Instances: [
              {
                InstanceIds: [existing.instanceId],
                InstanceType: existing.instanceType as never,
                Lifecycle: existing.capacityType === 'spot' ? 'spot' : 'on-demand',
                LaunchTemplateAndOverrides: { Overrides: { SubnetId: existing.subnetId, AvailabilityZone: existing.zone } },
              },
            ],
            $metadata: {},
          };
      }
      if (LaunchTemplateNotFoundCodes.has(code ?? '')) throw e;
      if (code && IceErrorCodes.has(code)) throw new InsufficientCapacityError(`CreateFleet for nodeclaim ${req.nodeClaim.name}: ${code}`, [], { cause: e });
      throw mapAwsError(e, `CreateFleet for nodeclaim ${req.nodeClaim.name}`);
    }
  }

  private async ensureTemplates(req: LaunchRequest, resolved: ResolvedNodeClass, plan: FleetPlan, recreate: boolean): Promise<Map<string, string>> {
    const { nodeClass, nodePool, nodeClaim } = req;
    const instanceProfile = await this.deps.instanceProfile(nodeClass);
    const cluster = nodeClass.amiFamily === 'Custom' ? undefined : await this.deps.cluster();
    const userData = renderUserData({
      amiFamily: nodeClass.amiFamily,
      cluster: {
        name: this.deps.clusterName,
        endpoint: cluster?.endpoint ?? '',
        certificateAuthority: cluster?.certificateAuthority ?? '',
        serviceCidr: cluster?.serviceIpv4Cidr ?? cluster?.serviceIpv6Cidr,
      },
      // A pool's claim: its template labels; a standalone claim: its own labels.
      labels: nodePool
        ? { ...nodePool.template.labels, [Label.nodePool]: nodePool.name, [Label.ec2NodeClass]: nodeClass.name }
        : { ...nodeClaim.labels, [Label.ec2NodeClass]: nodeClass.name },
      taints: [...nodeClaim.spec.taints, ...nodeClaim.spec.startupTaints],
      kubelet: nodeClass.kubelet,
      custom: nodeClass.userData,
    });
    const ltTags = {
      ...nodeClass.tags,
      [clusterTagKey(this.deps.clusterName)]: 'owned',
      [Tag.eksClusterName]: this.deps.clusterName,
      [Tag.nodeClass]: nodeClass.name,
      [Tag.nodePool]: nodePool?.name ?? '',
    };
    const out = new Map<string, string>();
    const wanted = new Map(plan.overrides.map((o) => [templateKey(o), o] as const));
    for (const [key, { imageId, efaCount }] of wanted) {
      const input = { nodeClass, imageId, efaCount, securityGroupIds: resolved.securityGroups.map((g) => g.id), instanceProfile, userData, tags: ltTags };
      if (recreate) this.deps.templates.invalidate(await this.deps.templates.nameFor(input));
      out.set(key, await this.deps.templates.ensure(input));
    }
    return out;
  }

  /**
   * The instance an earlier attempt with this claim's ClientToken launched: tagged with the claim, launched
   * after the claim was created, and the only one. A stray instance carrying the same tag is never adopted
   * (ownership goes by providerID; garbage collection reclaims the stray): with two candidates, none is.
   */
  private async findByNodeClaim(name: string, createdMs: number): Promise<CloudInstance | undefined> {
    const found = await describeInstances(this.deps.ec2, [
      { Name: `tag:${clusterTagKey(this.deps.clusterName)}`, Values: ['owned'] },
      { Name: `tag:${Tag.nodeClaim}`, Values: [name] },
      { Name: 'instance-state-name', Values: ['pending', 'running'] },
    ]);
    const candidates = found.filter((i) => i.launchTime >= createdMs - 1_000);
    return candidates.length === 1 ? candidates[0] : undefined;
  }
}
