/**
 * The simulated IAM instance-profile API, as the functions call it (shared/adapters/aws/iam): profiles live in
 * the EC2 world (EC2 checks them at launch). Errors are IAM's: NoSuchEntity, EntityAlreadyExists, and
 * LimitExceeded for a second role (an instance profile holds one).
 */
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  EntityAlreadyExistsException,
  GetInstanceProfileCommand,
  GetRoleCommand,
  IAMClient,
  LimitExceededException,
  ListInstanceProfilesCommand,
  NoSuchEntityException,
  RemoveRoleFromInstanceProfileCommand,
  TagInstanceProfileCommand,
  type InstanceProfile,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import type { SimInstanceProfile } from './ec2-resources';
import type { Ec2World } from './ec2-world';

const noSuch = (name: string) => new NoSuchEntityException({ $metadata: {}, message: `Instance Profile ${name} cannot be found.` });

function view(p: SimInstanceProfile): InstanceProfile {
  return {
    InstanceProfileName: p.name,
    Path: p.path,
    InstanceProfileId: `AIPA${p.name.length}SIM`,
    Arn: `arn:aws:iam::000000000000:instance-profile${p.path}${p.name}`,
    CreateDate: new Date(p.createdMs),
    Roles: p.roles.map((r) => ({ RoleName: r, Path: '/', RoleId: `AROA${r.length}SIM`, Arn: `arn:aws:iam::000000000000:role/${r}`, CreateDate: new Date(0) })),
    Tags: Object.entries(p.tags).map(([Key, Value]) => ({ Key, Value })),
  };
}

export function installIam(world: () => Ec2World): () => void {
  const iam = mockClient(IAMClient);
  const get = (name: string | undefined) => {
    const p = world().instanceProfiles.get(name ?? '');
    if (!p) throw noSuch(String(name));
    return p;
  };
  iam.on(GetInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string }) => ({ InstanceProfile: view(get(i.InstanceProfileName)) }));
  iam.on(CreateInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string; Path?: string; Tags?: { Key?: string; Value?: string }[] }) => {
    const w = world();
    const name = i.InstanceProfileName ?? '';
    if (w.instanceProfiles.has(name)) throw new EntityAlreadyExistsException({ $metadata: {}, message: `Instance Profile ${name} already exists.` });
    const p: SimInstanceProfile = {
      name,
      path: i.Path ?? '/',
      roles: [],
      tags: Object.fromEntries((i.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? ''])),
      createdMs: w.opts.clock.now(),
    };
    w.instanceProfiles.set(name, p);
    return { InstanceProfile: view(p) };
  });
  iam.on(TagInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string; Tags?: { Key?: string; Value?: string }[] }) => {
    const p = get(i.InstanceProfileName);
    for (const t of i.Tags ?? []) p.tags[t.Key ?? ''] = t.Value ?? '';
    return {};
  });
  iam.on(AddRoleToInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string; RoleName?: string }) => {
    const p = get(i.InstanceProfileName);
    if (p.roles.length >= 1) throw new LimitExceededException({ $metadata: {}, message: 'Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1' });
    p.roles.push(i.RoleName ?? '');
    return {};
  });
  iam.on(RemoveRoleFromInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string; RoleName?: string }) => {
    const p = get(i.InstanceProfileName);
    if (!p.roles.includes(i.RoleName ?? ''))
      throw new NoSuchEntityException({ $metadata: {}, message: `The role ${i.RoleName} is not in instance profile ${p.name}.` });
    p.roles = p.roles.filter((r) => r !== i.RoleName);
    return {};
  });
  iam.on(DeleteInstanceProfileCommand).callsFake(async (i: { InstanceProfileName?: string }) => {
    const p = get(i.InstanceProfileName);
    if (p.roles.length)
      throw Object.assign(new Error('Cannot delete entity, must remove roles from instance profile first.'), {
        name: 'DeleteConflictException',
        $fault: 'client',
        $metadata: { httpStatusCode: 409 },
      });
    world().instanceProfiles.delete(p.name);
    return {};
  });
  iam.on(ListInstanceProfilesCommand).callsFake(async (i: { PathPrefix?: string }) => ({
    InstanceProfiles: [...world().instanceProfiles.values()].filter((p) => p.path.startsWith(i.PathPrefix ?? '/')).map(view),
    IsTruncated: false,
  }));
  iam.on(GetRoleCommand).callsFake(async (i: { RoleName?: string }) => {
    if (!world().roles.has(i.RoleName ?? '')) throw new NoSuchEntityException({ $metadata: {}, message: `The role with name ${i.RoleName} cannot be found.` });
    return { Role: { RoleName: i.RoleName, Path: '/', RoleId: 'AROASIM', Arn: `arn:aws:iam::000000000000:role/${i.RoleName}`, CreateDate: new Date(0) } };
  });
  return () => iam.restore();
}
