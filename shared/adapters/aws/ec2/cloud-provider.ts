import { RebootInstancesCommand, StartInstancesCommand, StopInstancesCommand, TerminateInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { buildInstanceTypes } from '../../../core/instance-types/build';
import type { CatalogEntry, InstanceType } from '../../../core/instance-types/types';
import type { EC2NodeClass, EC2NodeClassStatus, NodeClaim, NodePool, StatusCondition } from '../../../core/model/karpenter';
import { Tag } from '../../../core/model/labels';
import type { Clock } from '../../../core/ports/clock';
import type { CloudInstance, CloudProvider, DriftReason, LaunchRequest } from '../../../core/ports/cloud-provider';
import type { StateStore } from '../../../core/ports/state-store';
import { InstanceNotOwnedError, isNodeClassNotReadyError, NodeClaimNotFoundError, NodeClassNotReadyError } from '../../../core/errors';
import type { EksClusterInfo } from '../eks/describe-cluster';
import { mapAwsError } from '../errors';
import { describeInstance, describeInstances, parseProviderID, tagOwnedInstance } from './instances';
import type { InstanceProfiles } from '../iam/instance-profiles';
import { InstanceTypeSource } from './instance-type-source';
import { FleetLauncher } from './launch';
import { LaunchTemplates } from './launch-templates';
import { NodeClassResolver, type ResolvedNodeClass } from './node-class-resolver';
import { resolveSecurityGroups, resolveSubnets } from './selectors';
import { clusterTagKey, isOwnedByCluster } from './tags';

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

/** CloudProvider on EC2: CreateFleet launches (launch.ts), DescribeInstances reads, TerminateInstances only for owned instances. */
export class Ec2CloudProvider implements CloudProvider {
  private readonly source: InstanceTypeSource;
  private readonly resolver: NodeClassResolver;
  private readonly templates: LaunchTemplates;
  private readonly launcher: FleetLauncher;
  private clusterInfo?: Promise<EksClusterInfo>;

  constructor(private readonly deps: Ec2CloudProviderDeps) {
    if (!deps.clusterName) throw new Error('Ec2CloudProvider: clusterName is required');
    const now = () => deps.clock.now();
    const store = deps.stateStore;
    this.source = new InstanceTypeSource({
      ec2: deps.ec2,
      region: deps.region,
      now,
      catalog: deps.catalog,
      onFallback: deps.onFallback,
      ...(store.onDemandPrices ? { storedPrices: () => store.onDemandPrices!(deps.region) } : {}),
    });
    this.resolver = new NodeClassResolver({ ec2: deps.ec2, ssm: deps.ssm, now, k8sVersion: async () => (await this.cluster()).version });
    this.templates = new LaunchTemplates(deps.ec2, now);
    this.launcher = new FleetLauncher({
      ec2: deps.ec2,
      clusterName: deps.clusterName,
      stateStore: store,
      clock: deps.clock,
      resolver: this.resolver,
      templates: this.templates,
      cluster: () => this.cluster(),
      instanceProfile: (nodeClass) => this.instanceProfileFor(nodeClass),
    });
  }

  private async cluster(): Promise<EksClusterInfo> {
    const c = this.deps.cluster;
    if (!c)
      throw new NodeClassNotReadyError(
        `cluster ${this.deps.clusterName}: endpoint, CA and version are unknown (Ec2CloudProvider was built without cluster info)`,
      );
    if (typeof c !== 'function') return c;
    this.clusterInfo ??= c().catch((e) => {
      this.clusterInfo = undefined;
      throw e;
    });
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

  async instanceTypes(nodeClass: EC2NodeClass, _nodePool?: NodePool, only?: readonly string[]): Promise<InstanceType[]> {
    const resolved = await this.resolver.resolve(nodeClass);
    const [entries, zonesByType, spotPrices, unavailable, onDemandPrices] = await Promise.all([
      only ? this.source.entriesNamed(only) : this.source.entries(),
      this.source.zonesByType(only),
      this.source.spotPrices(only),
      this.deps.stateStore.unavailableOfferings(),
      this.source.onDemandPrices(),
    ]);
    const ice = unavailable
      .map(({ instanceType, zone, capacityType }) => `${capacityType}:${instanceType}:${zone}`)
      .sort()
      .join(',');
    const inputs: unknown[] = [entries, zonesByType, spotPrices, onDemandPrices, ice, JSON.stringify(nodeClass), JSON.stringify(resolved)];
    const hit = only ? undefined : this.builtTypes.get(nodeClass.name);
    if (hit && hit.inputs.every((v, i) => v === inputs[i])) return hit.types;
    // A type whose architecture has no AMI could never launch: don't offer it to the scheduler.
    const arches = new Set(resolved.amis.map((a) => a.arch));
    const types = buildInstanceTypes(
      entries.filter((e) => arches.has(e.arch)),
      {
        region: this.deps.region,
        zones: [...new Set(resolved.subnets.map((s) => s.zone))].sort(),
        nodeClass: { ...nodeClass, status: { ...nodeClass.status, ...NodeClassResolver.toStatus(resolved) } },
        ...(onDemandPrices ? { onDemandPrices } : {}),
        spotPrices,
        unavailable: unavailable.map(({ instanceType, zone, capacityType }) => ({ instanceType, zone, capacityType })),
        zonesByType,
      },
    );
    if (!only) this.builtTypes.set(nodeClass.name, { inputs, types });
    return types;
  }

  async create(req: LaunchRequest): Promise<CloudInstance> {
    return this.launcher.launch(req);
  }

  async nodeClassStatus(nodeClass: EC2NodeClass): Promise<EC2NodeClassStatus> {
    // Karpenter's nodeclass controller: a selector that matches nothing is a False condition with its reason; an
    // EC2 API error throws (nothing is written, the next run tries again).
    let amisError: string | undefined;
    const resolved = await this.resolver.resolveEach(nodeClass).catch(async (e: unknown) => {
      if (!isNodeClassNotReadyError(e)) throw e;
      amisError = e.message; // an alias the AMI resolver does not support
      const [subnets, securityGroups] = await Promise.all([
        resolveSubnets(this.deps.ec2, nodeClass.subnetSelectorTerms),
        resolveSecurityGroups(this.deps.ec2, nodeClass.securityGroupSelectorTerms),
      ]);
      return { subnets, securityGroups, amis: [] };
    });
    const ok = (type: string): StatusCondition => ({ type, status: 'True', reason: type, message: '' });
    const no = (type: string, reason: string, message: string): StatusCondition => ({ type, status: 'False', reason, message });
    const conditions: StatusCondition[] = [
      resolved.subnets.length ? ok('SubnetsReady') : no('SubnetsReady', 'SubnetsNotFound', 'SubnetSelector did not match any Subnets'),
      resolved.securityGroups.length
        ? ok('SecurityGroupsReady')
        : no('SecurityGroupsReady', 'SecurityGroupsNotFound', 'SecurityGroupSelector did not match any SecurityGroups'),
      amisError
        ? no('AMIsReady', 'UnsupportedAlias', amisError)
        : resolved.amis.length
          ? ok('AMIsReady')
          : no('AMIsReady', 'AMINotFound', 'AMISelector did not match any AMIs'),
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
    if (given) {
      await this.deps.instanceProfiles?.checkGiven(nodeClass.name, given).catch((e: unknown) => {
        throw new NodeClassNotReadyError(e instanceof Error ? e.message : String(e), { cause: e });
      });
      return given;
    }
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

  async delete(providerID: string): Promise<void> {
    const instanceId = parseProviderID(providerID);
    const instance = await describeInstance(this.deps.ec2, instanceId);
    if (!isOwnedByCluster(instance.tags, this.deps.clusterName)) {
      throw new InstanceNotOwnedError(
        `instance ${instanceId} is not owned by cluster ${this.deps.clusterName} (needs tags ${clusterTagKey(this.deps.clusterName)}=owned and ${Tag.nodePool}); refusing to terminate it`,
      );
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

  async reboot(providerID: string): Promise<void> {
    await this.ownedInState(providerID, 'running', 'RebootInstances', (id) => new RebootInstancesCommand({ InstanceIds: [id] }));
  }

  async stop(providerID: string): Promise<void> {
    await this.ownedInState(providerID, 'running', 'StopInstances', (id) => new StopInstancesCommand({ InstanceIds: [id] }));
  }

  async start(providerID: string): Promise<void> {
    await this.ownedInState(providerID, 'stopped', 'StartInstances', (id) => new StartInstancesCommand({ InstanceIds: [id] }));
  }

  /** Sends `command` for an instance this cluster owns that is in `state`; InstanceNotOwnedError or NodeClaimNotFoundError otherwise. */
  private async ownedInState(
    providerID: string,
    state: 'running' | 'stopped',
    op: 'RebootInstances' | 'StopInstances' | 'StartInstances',
    command: (instanceId: string) => RebootInstancesCommand | StopInstancesCommand | StartInstancesCommand,
  ): Promise<void> {
    const instanceId = parseProviderID(providerID);
    const instance = await describeInstance(this.deps.ec2, instanceId);
    if (!isOwnedByCluster(instance.tags, this.deps.clusterName)) {
      throw new InstanceNotOwnedError(`instance ${instanceId} is not owned by cluster ${this.deps.clusterName}; refusing ${op}`);
    }
    if (instance.state !== state) throw new NodeClaimNotFoundError(`instance ${instanceId} is ${instance.state}, not ${state}`);
    const cmd = command(instanceId);
    try {
      await this.deps.ec2.send(cmd as RebootInstancesCommand);
    } catch (e) {
      throw mapAwsError(e, `${op} ${instanceId}`);
    }
  }

  /** The instance behind a providerID; InstanceNotOwnedError for an instance this cluster does not own. */
  async get(providerID: string): Promise<CloudInstance> {
    const instanceId = parseProviderID(providerID);
    const instance = await describeInstance(this.deps.ec2, instanceId);
    if (!isOwnedByCluster(instance.tags, this.deps.clusterName))
      throw new InstanceNotOwnedError(`instance ${instanceId} is not owned by cluster ${this.deps.clusterName}`);
    if (instance.state === 'terminated') throw new NodeClaimNotFoundError(`instance ${instanceId} is terminated`, { terminated: true });
    return instance;
  }

  async tagInstance(providerID: string, tags: Record<string, string>): Promise<void> {
    return tagOwnedInstance(this.deps.ec2, this.deps.clusterName, providerID, tags);
  }

  async list(): Promise<CloudInstance[]> {
    return describeInstances(this.deps.ec2, [
      { Name: `tag:${clusterTagKey(this.deps.clusterName)}`, Values: ['owned'] },
      { Name: 'tag-key', Values: [Tag.nodePool] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ]);
  }

  async describeOwned(query: { instanceIds: readonly string[] } | { nodeClaim: string }): Promise<CloudInstance[]> {
    const owned = [
      { Name: `tag:${clusterTagKey(this.deps.clusterName)}`, Values: ['owned'] },
      { Name: 'tag-key', Values: [Tag.nodePool] },
    ];
    if ('nodeClaim' in query) {
      return describeInstances(this.deps.ec2, [
        ...owned,
        { Name: `tag:${Tag.nodeClaim}`, Values: [query.nodeClaim] },
        { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
      ]);
    }
    // By filter, not InstanceIds: an id EC2 does not know is no error. A filter takes at most 200 values.
    const ids = [...new Set(query.instanceIds)];
    const out: CloudInstance[] = [];
    for (let i = 0; i < ids.length; i += 200) {
      out.push(...(await describeInstances(this.deps.ec2, [...owned, { Name: 'instance-id', Values: ids.slice(i, i + 200) }])));
    }
    return out;
  }

  /** AMI, subnet or security-group drift of the claim's instance against the node class as resolved now (docs/karpenter-reference.md §6.7). */
  async isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass, known?: CloudInstance): Promise<DriftReason | undefined> {
    if (!claim.status.providerID) return undefined;
    const [instance, resolved] = await Promise.all([known ?? this.get(claim.status.providerID), this.resolver.resolve(nodeClass)]);
    if (instance.imageId && !resolved.amis.some((a) => a.id === instance.imageId)) return 'AMIDrift';
    if (instance.subnetId && !resolved.subnets.some((s) => s.id === instance.subnetId)) return 'SubnetDrift';
    const want = resolved.securityGroups.map((g) => g.id).sort();
    const have = [...(instance.securityGroupIds ?? [])].sort();
    if (want.length !== have.length || want.some((g, i) => g !== have[i])) return 'SecurityGroupDrift';
    return undefined;
  }
}
