/**
 * EC2 answered by an Ec2World: every EC2Client (the composition root's `new EC2Client()` included) is mocked
 * with aws-sdk-client-mock, so the production Ec2CloudProvider runs unchanged against the simulated state.
 */
import {
  CreateFleetCommand,
  CreateTagsCommand,
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2ServiceException,
  RebootInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  type Instance,
  type Filter,
} from '@aws-sdk/client-ec2';
import { installInstanceTypes } from './ec2-catalog-mock';
import { matchesFilters, page, tagList, tagRecord } from './filters';
import { createFleet } from './ec2-fleet';
import { rebootInstance, rebootRefusal } from './ec2-reboot';
import { launchTemplateVolumes } from './ec2-billing';
import { startInstance, startRefusal, stateOf, stopInstance, stopRefusal } from './ec2-stop-start';
import { hashHex, type Ec2World, type SimInstance } from './ec2-world';

function ec2Error(code: string, message: string): EC2ServiceException {
  const e = new EC2ServiceException({ name: code, $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
  Object.assign(e, { Code: code });
  return e;
}

function toInstance(world: Ec2World, i: SimInstance): Instance {
  return {
    InstanceId: i.id,
    InstanceType: i.type as never,
    ImageId: i.imageId,
    SubnetId: i.subnetId,
    VpcId: 'vpc-0sim',
    Placement: { AvailabilityZone: i.zone },
    PrivateIpAddress: i.privateIp,
    PrivateDnsName: i.state === 'terminated' ? '' : i.privateDnsName,
    State: stateOf(i.state),
    StateTransitionReason: i.stateTransitionReason ?? '',
    ...(i.state === 'stopping' || i.state === 'stopped'
      ? { StateReason: { Code: 'Client.UserInitiatedShutdown', Message: 'Client.UserInitiatedShutdown: User initiated shutdown' } }
      : {}),
    LaunchTime: new Date(i.launchTimeMs),
    Architecture: world.catalogEntry(i.type)?.arch === 'arm64' ? 'arm64' : 'x86_64',
    SecurityGroups: i.securityGroupIds.map((GroupId) => ({ GroupId })),
    Tags: tagList(i.tags),
    ...(i.capacityType === 'spot' ? { InstanceLifecycle: 'spot' as const } : {}),
  };
}

function instanceAttributes(i: SimInstance): Record<string, string | string[]> {
  return {
    'instance-id': i.id,
    'instance-state-name': i.state,
    'instance-type': i.type,
    'availability-zone': i.zone,
    'subnet-id': i.subnetId,
    'image-id': i.imageId,
    'private-dns-name': i.privateDnsName,
    'instance-lifecycle': i.capacityType === 'spot' ? 'spot' : [],
    'vpc-id': 'vpc-0sim',
  };
}

/** The part of an aws-sdk-client-mock stub used here. */
export interface CommandStub {
  on(command: unknown): { callsFake(fn: (input: never) => unknown): unknown };
}

/** Answers one command with `fn(input)`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type On = (command: unknown, fn: (input: any) => unknown) => void;

/** Installs the EC2 answers; `world()` is read on each call so one mock serves successive scenarios. */
export function installEc2(mock: CommandStub, world: () => Ec2World): void {
  const on: On = (command, fn) => {
    mock.on(command).callsFake(async (input: never) => fn(input));
  };
  installNetworkAndImages(on, world);
  installLaunchTemplates(on, world);
  installInstances(on, world);
  installInstanceTypes(on, world);
}

/** Subnets, security groups and AMIs, with filters and paging. */
function installNetworkAndImages(on: On, world: () => Ec2World): void {
  on(DescribeSubnetsCommand, (input: { Filters?: Filter[]; SubnetIds?: string[]; NextToken?: string; MaxResults?: number }) => {
    const w = world();
    const all = w.subnets.filter(
      (s) =>
        (!input.SubnetIds || input.SubnetIds.includes(s.id)) &&
        matchesFilters(
          input.Filters,
          { 'subnet-id': s.id, 'availability-zone': s.zone, 'availability-zone-id': s.zoneId, 'vpc-id': 'vpc-0sim', state: 'available' },
          s.tags,
        ),
    );
    const p = page(all, input.NextToken, input.MaxResults);
    return {
      Subnets: p.items.map((s) => ({
        SubnetId: s.id,
        AvailabilityZone: s.zone,
        AvailabilityZoneId: s.zoneId,
        CidrBlock: s.cidr,
        VpcId: 'vpc-0sim',
        AvailableIpAddressCount: 8000,
        State: 'available' as const,
        Tags: tagList(s.tags),
      })),
      ...(p.NextToken ? { NextToken: p.NextToken } : {}),
    };
  });
  on(DescribeSecurityGroupsCommand, (input: { Filters?: Filter[]; GroupIds?: string[]; NextToken?: string; MaxResults?: number }) => {
    const all = world().securityGroups.filter(
      (g) =>
        (!input.GroupIds || input.GroupIds.includes(g.id)) &&
        matchesFilters(input.Filters, { 'group-id': g.id, 'group-name': g.name, 'vpc-id': 'vpc-0sim' }, g.tags),
    );
    const p = page(all, input.NextToken, input.MaxResults);
    return {
      SecurityGroups: p.items.map((g) => ({ GroupId: g.id, GroupName: g.name, VpcId: 'vpc-0sim', Tags: tagList(g.tags) })),
      ...(p.NextToken ? { NextToken: p.NextToken } : {}),
    };
  });
  on(DescribeImagesCommand, (input: { Filters?: Filter[]; ImageIds?: string[]; NextToken?: string; MaxResults?: number }) => {
    const all = [...world().images.values()].filter(
      (i) =>
        (!input.ImageIds || input.ImageIds.includes(i.id)) &&
        matchesFilters(input.Filters, { 'image-id': i.id, name: i.name, architecture: i.arch, state: 'available' }, i.tags),
    );
    const p = page(all, input.NextToken, input.MaxResults);
    return {
      Images: p.items.map((i) => ({
        ImageId: i.id,
        Name: i.name,
        Architecture: i.arch,
        CreationDate: i.creationDate,
        State: 'available' as const,
        Tags: tagList(i.tags),
      })),
      ...(p.NextToken ? { NextToken: p.NextToken } : {}),
    };
  });
}

/** Launch templates: create (names are unique), describe, delete. */
function installLaunchTemplates(on: On, world: () => Ec2World): void {
  on(CreateLaunchTemplateCommand, (input: CreateLaunchTemplateCommand['input']) => {
    const w = world();
    const name = input.LaunchTemplateName ?? '';
    if (w.launchTemplates.has(name)) throw ec2Error('InvalidLaunchTemplateName.AlreadyExistsException', `Launch template name already in use: ${name}`);
    const d = input.LaunchTemplateData ?? {};
    const sgs = d.SecurityGroupIds ?? d.NetworkInterfaces?.flatMap((n) => n.Groups ?? []) ?? [];
    const volumes = launchTemplateVolumes(d.BlockDeviceMappings);
    const lt = {
      name,
      id: `lt-${hashHex('lt', name).slice(0, 17)}`,
      imageId: d.ImageId,
      userData: d.UserData ? Buffer.from(d.UserData, 'base64').toString('utf8') : undefined,
      securityGroupIds: sgs,
      tags: tagRecord(input.TagSpecifications?.[0]?.Tags),
      ...(d.IamInstanceProfile?.Name ? { instanceProfile: d.IamInstanceProfile.Name } : {}),
      ...(d.NetworkInterfaces?.some((n) => n.InterfaceType)
        ? {
            networkInterfaces: d.NetworkInterfaces.map((n) => ({
              card: n.NetworkCardIndex ?? 0,
              device: n.DeviceIndex ?? 0,
              type: n.InterfaceType ?? 'interface',
            })),
          }
        : {}),
      ...(volumes ? { volumes } : {}),
      createdMs: w.opts.clock.now(),
    };
    w.launchTemplates.set(name, lt);
    return { LaunchTemplate: { LaunchTemplateName: name, LaunchTemplateId: lt.id, LatestVersionNumber: 1, DefaultVersionNumber: 1 } };
  });
  on(DescribeLaunchTemplatesCommand, (input: { Filters?: Filter[]; LaunchTemplateNames?: string[] }) => ({
    LaunchTemplates: [...world().launchTemplates.values()]
      .filter(
        (t) =>
          (!input.LaunchTemplateNames || input.LaunchTemplateNames.includes(t.name)) &&
          matchesFilters(input.Filters, { 'launch-template-name': t.name }, t.tags),
      )
      .map((t) => ({
        LaunchTemplateName: t.name,
        LaunchTemplateId: t.id,
        Tags: tagList(t.tags),
        ...(t.createdMs !== undefined ? { CreateTime: new Date(t.createdMs) } : {}),
      })),
  }));
  on(DeleteLaunchTemplateCommand, (input: { LaunchTemplateName?: string }) => {
    const w = world();
    const t = w.launchTemplates.get(input.LaunchTemplateName ?? '');
    if (!t)
      throw ec2Error(
        'InvalidLaunchTemplateName.NotFoundException',
        `The specified launch template, with template name ${input.LaunchTemplateName}, does not exist.`,
      );
    w.launchTemplates.delete(t.name);
    return { LaunchTemplate: { LaunchTemplateName: t.name, LaunchTemplateId: t.id } };
  });
}

/**
 * The instances a DescribeInstances request can match, without reading every instance when it names some: by id
 * (InstanceIds, or an `instance-id` filter without wildcards), else by an exact `tag:` filter (the smallest such set);
 * every instance otherwise. The filters are still applied to what this returns.
 */
function candidateInstances(w: Ec2World, input: { Filters?: Filter[]; InstanceIds?: string[] }): SimInstance[] {
  const exact = (values: string[] | undefined) => values !== undefined && values.every((v) => !/[*?]/.test(v));
  const byId = (ids: readonly string[]) => [...new Set(ids)].flatMap((id) => w.instances.get(id) ?? []);
  if (input.InstanceIds) return byId(input.InstanceIds);
  const idFilter = input.Filters?.find((f) => f.Name === 'instance-id' && exact(f.Values));
  if (idFilter) return byId(idFilter.Values ?? []);
  let best: SimInstance[] | undefined;
  for (const f of input.Filters ?? []) {
    if (!f.Name?.startsWith('tag:') || !exact(f.Values)) continue;
    const found = [...new Set((f.Values ?? []).flatMap((v) => w.taggedWith(f.Name!.slice(4), v)))];
    if (!best || found.length < best.length) best = found;
  }
  return best ?? [...w.instances.values()];
}

/** CreateFleet, DescribeInstances (terminated ones for an hour; a lagging new one not yet), TerminateInstances, RebootInstances, StopInstances, StartInstances. */
function installInstances(on: On, world: () => Ec2World): void {
  on(CreateFleetCommand, (input: CreateFleetCommand['input']) => createFleet(world(), input));
  on(DescribeInstancesCommand, (input: { Filters?: Filter[]; InstanceIds?: string[]; NextToken?: string; MaxResults?: number }) => {
    const w = world();
    const hourAgo = w.opts.clock.now() - 3_600_000;
    const all = candidateInstances(w, input)
      .filter((i) => w.describable(i) && !(i.state === 'terminated' && (i.terminatedAtMs ?? 0) < hourAgo))
      .filter((i) => (!input.InstanceIds || input.InstanceIds.includes(i.id)) && matchesFilters(input.Filters, instanceAttributes(i), i.tags))
      .sort((a, b) => a.launchTimeMs - b.launchTimeMs || a.id.localeCompare(b.id));
    if (input.InstanceIds && all.length === 0) throw ec2Error('InvalidInstanceID.NotFound', `The instance IDs '${input.InstanceIds.join(', ')}' do not exist`);
    const p = page(all, input.NextToken, input.MaxResults, 1000);
    return {
      Reservations: p.items.map((i) => ({ ReservationId: `r-${i.id.slice(2)}`, Instances: [toInstance(w, i)] })),
      ...(p.NextToken ? { NextToken: p.NextToken } : {}),
    };
  });
  on(CreateTagsCommand, (input: { Resources?: string[]; Tags?: { Key?: string; Value?: string }[] }) => {
    const w = world();
    const instances = (input.Resources ?? []).map((id) => {
      const i = w.instances.get(id);
      if (!i || !w.describable(i) || i.state === 'terminated') throw ec2Error('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
      return i;
    });
    const tags = Object.fromEntries((input.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
    for (const i of instances) w.tag(i, tags);
    return {};
  });
  on(TerminateInstancesCommand, (input: { InstanceIds?: string[] }) => {
    const w = world();
    const missing = (input.InstanceIds ?? []).filter((id) => {
      const i = w.instances.get(id);
      return !i || !w.describable(i);
    });
    if (missing.length) throw ec2Error('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
    return {
      TerminatingInstances: (input.InstanceIds ?? []).map((id) => {
        const before = w.instances.get(id)?.state ?? 'terminated';
        const after = w.terminate(id, 'terminated-by-nodewright')?.state ?? 'terminated';
        return { InstanceId: id, PreviousState: { Name: before }, CurrentState: { Name: after } };
      }),
    };
  });
  // RebootInstances: every id checked first (all or none); the instances stay running, their nodes reboot.
  on(RebootInstancesCommand, (input: { InstanceIds?: string[] }) => {
    const w = world();
    const ids = input.InstanceIds ?? [];
    const refused = rebootRefusal(w, ids);
    if (refused) throw ec2Error(refused.code, refused.message);
    for (const id of new Set(ids)) rebootInstance(w, w.instances.get(id)!);
    return {};
  });
  // StopInstances / StartInstances: every id checked first (all or none); one already on its way is answered as it stands.
  on(StopInstancesCommand, (input: { InstanceIds?: string[]; Hibernate?: boolean }) => {
    const w = world();
    const ids = [...new Set(input.InstanceIds ?? [])];
    const refused = stopRefusal(w, ids, input.Hibernate === true);
    if (refused) throw ec2Error(refused.code, refused.message);
    const previous = ids.map((id) => stopInstance(w, w.instances.get(id)!));
    return {
      StoppingInstances: ids.map((id, k) => ({ InstanceId: id, PreviousState: stateOf(previous[k]), CurrentState: stateOf(w.instances.get(id)!.state) })),
    };
  });
  on(StartInstancesCommand, (input: { InstanceIds?: string[] }) => {
    const w = world();
    const ids = [...new Set(input.InstanceIds ?? [])];
    const refused = startRefusal(w, ids);
    if (refused) throw ec2Error(refused.code, refused.message);
    const previous = ids.map((id) => startInstance(w, w.instances.get(id)!));
    return {
      StartingInstances: ids.map((id, k) => ({ InstanceId: id, PreviousState: stateOf(previous[k]), CurrentState: stateOf(w.instances.get(id)!.state) })),
    };
  });
}
