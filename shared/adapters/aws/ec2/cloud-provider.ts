import { CreateFleetCommand, TerminateInstancesCommand, type CreateFleetCommandOutput, type EC2Client } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { buildInstanceTypes } from '../../../core/instance-types/build';
import type { CatalogEntry, InstanceType } from '../../../core/instance-types/types';
import type { EC2NodeClass, EC2NodeClassStatus, NodeClaim, NodePool, StatusCondition } from '../../../core/model/karpenter';
import { Label, Tag } from '../../../core/model/labels';
import type { Clock } from '../../../core/ports/clock';
import type { CloudInstance, CloudProvider, DriftReason, LaunchRequest } from '../../../core/ports/cloud-provider';
import type { StateStore } from '../../../core/ports/state-store';
import { InsufficientCapacityError, InstanceNotOwnedError, isNodeClassNotReadyError, NodeClaimNotFoundError, NodeClassNotReadyError } from '../../../core/errors';
import type { EksClusterInfo } from '../eks/describe-cluster';
import { awsErrorCode, IceErrorCodes, LaunchTemplateNotFoundCodes, mapAwsError } from '../errors';
import { amiFor } from './amis';
import { clientTokenFor, createFleetInput, iceOfferings, launchedInstance } from './fleet';
import { planFleet, type FleetPlan } from './fleet-plan';
import { describeInstance, describeInstances, parseProviderID, providerIdFor } from './instances';
import type { InstanceProfiles } from '../iam/instance-profiles';
import { InstanceTypeSource } from './instance-type-source';
import { LaunchTemplates } from './launch-templates';
import { NodeClassResolver, type ResolvedNodeClass } from './node-class-resolver';
import { resolveSecurityGroups, resolveSubnets, subnetPerZone } from './selectors';
import { clusterTagKey, isOwnedByCluster, launchTags } from './tags';
import { renderUserData } from './user-data';

/** ICE marks live 3 minutes (docs/karpenter-reference.md §3.4). */
export const ICE_TTL_SECONDS = 180;

export interface Ec2CloudProviderDeps {
  ec2: EC2Client;
  ssm: SSMClient;
  clusterName: string;
  region: string;
  stateStore: StateStore;
  clock: Pick<Clock, 'now'>;
  /** The bundled instance-type catalog: fallback for DescribeInstanceTypes and source of on-demand prices. */
  catalog: readonly CatalogEntry[];
  /** Endpoint, CA, version and service CIDR (from describeCluster); needed to launch and to resolve AMI aliases. */
  cluster?: EksClusterInfo | (() => Promise<EksClusterInfo>);
  /**
   * Instance profile used when the node class names a `role` but no `instanceProfile`, instead of managing one
   * (an opt-out for accounts where the functions may not create IAM instance profiles).
   */
  defaultInstanceProfile?: string;
  /** Manages instance profiles from node class roles, as Karpenter does (../iam/instance-profiles.ts). */
  instanceProfiles?: InstanceProfiles;
  /** Told when an EC2 read failed and cached or bundled data was used. */
  onFallback?: (what: string, error: unknown) => void;
}

/** CloudProvider on EC2: CreateFleet launches, DescribeInstances reads, TerminateInstances only for owned instances. */
export class Ec2CloudProvider implements CloudProvider {
  private readonly source: InstanceTypeSource;
  private readonly resolver: NodeClassResolver;
  private readonly templates: LaunchTemplates;
  private clusterInfo?: Promise<EksClusterInfo>;

  constructor(private readonly deps: Ec2CloudProviderDeps) {
    if (!deps.clusterName) throw new Error('Ec2CloudProvider: clusterName is required');
    const now = () => deps.clock.now();
    const store = deps.stateStore;
    this.source = new InstanceTypeSource({
      ec2: deps.ec2, region: deps.region, now, catalog: deps.catalog, onFallback: deps.onFallback,
      ...(store.onDemandPrices ? { storedPrices: () => store.onDemandPrices!(deps.region) } : {}),
    });
    this.resolver = new NodeClassResolver({ ec2: deps.ec2, ssm: deps.ssm, now, k8sVersion: async () => (await this.cluster()).version });
    this.templates = new LaunchTemplates(deps.ec2, now);
  }

  private async cluster(): Promise<EksClusterInfo> {
    const c = this.deps.cluster;
    if (!c) throw new NodeClassNotReadyError(`cluster ${this.deps.clusterName}: endpoint, CA and version are unknown (Ec2CloudProvider was built without cluster info)`);
    if (typeof c !== 'function') return c;
    this.clusterInfo ??= c().catch((e) => { this.clusterInfo = undefined; throw e; });
    return this.clusterInfo;
  }

  /** Deletes this cluster's launch templates of node classes that are gone, and stale ones (LaunchTemplates.collect). */
  async collectLaunchTemplates(liveClasses: ReadonlySet<string>): Promise<string[]> {
    return this.templates.collect(this.deps.clusterName, liveClasses);
  }

  /** Subnets, security groups and AMIs the node class selects (EC2NodeClass status). */
  async resolveNodeClass(nodeClass: EC2NodeClass): Promise<ResolvedNodeClass> {
    return this.resolver.resolve(nodeClass);
  }

  /**
   * The last built instance types per node class, reused while none of their inputs changed (same cached
   * catalog/offerings/prices objects, same ICE marks, same node class): rebuilding ~1400 types per call is
   * wasted work in a warm Lambda, and returning the same array lets the scheduler reuse its templates.
   */
  private readonly builtTypes = new Map<string, { inputs: unknown[]; types: InstanceType[] }>();

  async instanceTypes(nodeClass: EC2NodeClass, _nodePool?: NodePool): Promise<InstanceType[]> {
    const resolved = await this.resolver.resolve(nodeClass);
    const [entries, zonesByType, spotPrices, unavailable, onDemandPrices] = await Promise.all([
      this.source.entries(), this.source.zonesByType(), this.source.spotPrices(), this.deps.stateStore.unavailableOfferings(), this.source.onDemandPrices(),
    ]);
    const ice = unavailable.map(({ instanceType, zone, capacityType }) => `${capacityType}:${instanceType}:${zone}`).sort().join(',');
    const inputs: unknown[] = [entries, zonesByType, spotPrices, onDemandPrices, ice, JSON.stringify(nodeClass), JSON.stringify(resolved)];
    const hit = this.builtTypes.get(nodeClass.name);
    if (hit && hit.inputs.every((v, i) => v === inputs[i])) return hit.types;
    // A type whose architecture has no AMI could never launch: don't offer it to the scheduler.
    const arches = new Set(resolved.amis.map((a) => a.arch));
    const types = buildInstanceTypes(entries.filter((e) => arches.has(e.arch)), {
      region: this.deps.region,
      zones: [...new Set(resolved.subnets.map((s) => s.zone))].sort(),
      nodeClass: { ...nodeClass, status: { ...nodeClass.status, ...NodeClassResolver.toStatus(resolved) } },
      ...(onDemandPrices ? { onDemandPrices } : {}),
      spotPrices,
      unavailable: unavailable.map(({ instanceType, zone, capacityType }) => ({ instanceType, zone, capacityType })),
      zonesByType,
    });
    this.builtTypes.set(nodeClass.name, { inputs, types });
    return types;
  }

  async create(req: LaunchRequest): Promise<CloudInstance> {
    const { nodeClaim, nodePool, nodeClass } = req;
    const resolved = await this.resolver.resolve(nodeClass);
    const plan = planFleet(req, subnetPerZone(resolved.subnets), (t) => amiFor(resolved.amis, t)?.id);
    const tags = launchTags({ clusterName: this.deps.clusterName, nodeClassTags: nodeClass.tags, nodePool: nodePool.name, nodeClass: nodeClass.name, nodeClaim: nodeClaim.name });
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
      const summary = errors.map((e) => `${e.ErrorCode}: ${e.ErrorMessage}`).slice(0, 5).join('; ') || 'no instance and no error returned';
      if (errors.length === 0 || errors.every((e) => IceErrorCodes.has(e.ErrorCode ?? ''))) {
        throw new InsufficientCapacityError(`CreateFleet for nodeclaim ${nodeClaim.name}: ${summary}`, marks.map((m) => m.offering));
      }
      const first = errors.find((e) => !IceErrorCodes.has(e.ErrorCode ?? ''))!;
      throw mapAwsError(Object.assign(new Error(first.ErrorMessage ?? summary), { name: first.ErrorCode ?? 'CreateFleetError' }), `CreateFleet for nodeclaim ${nodeClaim.name}`);
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

  private async createFleet(req: LaunchRequest, plan: FleetPlan, templateByImage: Map<string, string>, tags: Record<string, string>, clientToken: string): Promise<CreateFleetCommandOutput> {
    try {
      return await this.deps.ec2.send(new CreateFleetCommand(createFleetInput(req, plan, templateByImage, tags, clientToken)));
    } catch (e) {
      const code = awsErrorCode(e);
      if (code === 'IdempotentParameterMismatch') {
        // Same ClientToken, different request: an earlier attempt for this claim already launched.
        const existing = await this.findByNodeClaim(req.nodeClaim.name, req.nodeClaim.creationTimestamp * 1000);
        if (existing) return { Instances: [{ InstanceIds: [existing.instanceId], InstanceType: existing.instanceType as never, Lifecycle: existing.capacityType === 'spot' ? 'spot' : 'on-demand', LaunchTemplateAndOverrides: { Overrides: { SubnetId: existing.subnetId, AvailabilityZone: existing.zone } } }], $metadata: {} };
      }
      if (LaunchTemplateNotFoundCodes.has(code ?? '')) throw e;
      if (code && IceErrorCodes.has(code)) throw new InsufficientCapacityError(`CreateFleet for nodeclaim ${req.nodeClaim.name}: ${code}`, [], { cause: e });
      throw mapAwsError(e, `CreateFleet for nodeclaim ${req.nodeClaim.name}`);
    }
  }

  async nodeClassStatus(nodeClass: EC2NodeClass): Promise<EC2NodeClassStatus> {
    // Karpenter's nodeclass controller: a selector that matches nothing is a False condition with its reason; an
    // EC2 API error throws (nothing is written, the next run tries again).
    let amisError: string | undefined;
    const resolved = await this.resolver.resolveEach(nodeClass).catch(async (e: unknown) => {
      if (!isNodeClassNotReadyError(e)) throw e;
      amisError = e.message; // an alias the AMI resolver does not support
      const [subnets, securityGroups] = await Promise.all([resolveSubnets(this.deps.ec2, nodeClass.subnetSelectorTerms), resolveSecurityGroups(this.deps.ec2, nodeClass.securityGroupSelectorTerms)]);
      return { subnets, securityGroups, amis: [] };
    });
    const ok = (type: string): StatusCondition => ({ type, status: 'True', reason: type, message: '' });
    const no = (type: string, reason: string, message: string): StatusCondition => ({ type, status: 'False', reason, message });
    const conditions: StatusCondition[] = [
      resolved.subnets.length ? ok('SubnetsReady') : no('SubnetsReady', 'SubnetsNotFound', 'SubnetSelector did not match any Subnets'),
      resolved.securityGroups.length ? ok('SecurityGroupsReady') : no('SecurityGroupsReady', 'SecurityGroupsNotFound', 'SecurityGroupSelector did not match any SecurityGroups'),
      amisError ? no('AMIsReady', 'UnsupportedAlias', amisError) : resolved.amis.length ? ok('AMIsReady') : no('AMIsReady', 'AMINotFound', 'AMISelector did not match any AMIs'),
    ];
    let instanceProfile: string | undefined;
    try {
      instanceProfile = await this.instanceProfileFor(nodeClass);
      conditions.push(ok('InstanceProfileReady'));
    } catch (e) {
      if (!isNodeClassNotReadyError(e)) throw e;
      conditions.push(no('InstanceProfileReady', 'InstanceProfileNotReady', e.message));
    }
    return { ...NodeClassResolver.toStatus(resolved), ...(instanceProfile ? { instanceProfile } : {}), conditions };
  }

  /** spec.instanceProfile, else the configured default, else the profile managed from spec.role (created on first use). */
  private async instanceProfileFor(nodeClass: EC2NodeClass): Promise<string> {
    const given = nodeClass.instanceProfile ?? this.deps.defaultInstanceProfile;
    if (given) return given;
    if (nodeClass.role && this.deps.instanceProfiles) {
      try {
        return await this.deps.instanceProfiles.ensure(nodeClass);
      } catch (e) {
        throw new NodeClassNotReadyError(e instanceof Error ? e.message : String(e), { cause: e });
      }
    }
    if (nodeClass.status?.instanceProfile) return nodeClass.status.instanceProfile;
    throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClass.name}: no instance profile (set spec.instanceProfile, or spec.role for a managed one)`);
  }

  private async ensureTemplates(req: LaunchRequest, resolved: ResolvedNodeClass, plan: FleetPlan, recreate: boolean): Promise<Map<string, string>> {
    const { nodeClass, nodePool, nodeClaim } = req;
    const instanceProfile = await this.instanceProfileFor(nodeClass);
    const cluster = nodeClass.amiFamily === 'Custom' ? undefined : await this.cluster();
    const userData = renderUserData({
      amiFamily: nodeClass.amiFamily,
      cluster: { name: this.deps.clusterName, endpoint: cluster?.endpoint ?? '', certificateAuthority: cluster?.certificateAuthority ?? '', serviceCidr: cluster?.serviceIpv4Cidr ?? cluster?.serviceIpv6Cidr },
      labels: { ...nodePool.template.labels, [Label.nodePool]: nodePool.name, [Label.ec2NodeClass]: nodeClass.name },
      taints: [...nodeClaim.spec.taints, ...nodeClaim.spec.startupTaints],
      kubelet: nodeClass.kubelet,
      custom: nodeClass.userData,
    });
    const ltTags = { ...nodeClass.tags, [clusterTagKey(this.deps.clusterName)]: 'owned', [Tag.eksClusterName]: this.deps.clusterName, [Tag.nodeClass]: nodeClass.name, [Tag.nodePool]: nodePool.name };
    const out = new Map<string, string>();
    for (const imageId of new Set(plan.overrides.map((o) => o.imageId))) {
      const input = { nodeClass, imageId, securityGroupIds: resolved.securityGroups.map((g) => g.id), instanceProfile, userData, tags: ltTags };
      if (recreate) this.templates.invalidate(await this.templates.nameFor(input));
      out.set(imageId, await this.templates.ensure(input));
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

  async delete(providerID: string): Promise<void> {
    const instanceId = parseProviderID(providerID);
    const instance = await describeInstance(this.deps.ec2, instanceId);
    if (!isOwnedByCluster(instance.tags, this.deps.clusterName)) {
      throw new InstanceNotOwnedError(`instance ${instanceId} is not owned by cluster ${this.deps.clusterName} (needs tags ${clusterTagKey(this.deps.clusterName)}=owned and ${Tag.nodePool}); refusing to terminate it`);
    }
    if (instance.state === 'shutting-down' || instance.state === 'terminated') {
      throw new NodeClaimNotFoundError(`instance ${instanceId} is already ${instance.state}`);
    }
    try {
      await this.deps.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    } catch (e) {
      throw mapAwsError(e, `TerminateInstances ${instanceId}`);
    }
  }

  /** The instance behind a providerID; InstanceNotOwnedError for an instance this cluster does not own. */
  async get(providerID: string): Promise<CloudInstance> {
    const instanceId = parseProviderID(providerID);
    const instance = await describeInstance(this.deps.ec2, instanceId);
    if (!isOwnedByCluster(instance.tags, this.deps.clusterName)) throw new InstanceNotOwnedError(`instance ${instanceId} is not owned by cluster ${this.deps.clusterName}`);
    if (instance.state === 'terminated') throw new NodeClaimNotFoundError(`instance ${instanceId} is terminated`);
    return instance;
  }

  async list(): Promise<CloudInstance[]> {
    return describeInstances(this.deps.ec2, [
      { Name: `tag:${clusterTagKey(this.deps.clusterName)}`, Values: ['owned'] },
      { Name: 'tag-key', Values: [Tag.nodePool] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ]);
  }

  /** AMI, subnet or security-group drift of the claim's instance against the node class as resolved now (docs/karpenter-reference.md §6.7). */
  async isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<DriftReason | undefined> {
    if (!claim.status.providerID) return undefined;
    const [instance, resolved] = await Promise.all([this.get(claim.status.providerID), this.resolver.resolve(nodeClass)]);
    if (instance.imageId && !resolved.amis.some((a) => a.id === instance.imageId)) return 'AMIDrift';
    if (instance.subnetId && !resolved.subnets.some((s) => s.id === instance.subnetId)) return 'SubnetDrift';
    const want = resolved.securityGroups.map((g) => g.id).sort();
    const have = [...(instance.securityGroupIds ?? [])].sort();
    if (want.length !== have.length || want.some((g, i) => g !== have[i])) return 'SecurityGroupDrift';
    return undefined;
  }
}
