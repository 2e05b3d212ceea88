/** Instance profiles managed from an EC2NodeClass role, against IAM's API (aws-sdk-client-mock). */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  EntityAlreadyExistsException,
  GetInstanceProfileCommand,
  IAMClient,
  ListInstanceProfilesCommand,
  NoSuchEntityException,
  RemoveRoleFromInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { InstanceProfiles } from '../../../shared/adapters/aws/iam/instance-profiles';

const iam = mockClient(IAMClient);
beforeEach(() => iam.reset());
const profiles = (now = () => 0) => new InstanceProfiles({ iam: new IAMClient({ region: 'eu-west-1' }), clusterName: 'prod', region: 'eu-west-1', now });
const missing = () => new NoSuchEntityException({ $metadata: {}, message: 'not found' });
const nodeClass = { name: 'default', role: 'KarpenterNodeRole-prod', tags: { team: 'platform' } };

describe('instance profiles from EC2NodeClass roles', () => {
  it("should create the profile under the cluster's path with Karpenter's tags and add the role, once per container", async () => {
    // Prepare
    iam.on(GetInstanceProfileCommand).rejects(missing());
    iam.on(CreateInstanceProfileCommand).resolves({ InstanceProfile: { InstanceProfileName: 'x', Roles: [] } as never });
    const p = profiles();
    // Act
    const name = await p.ensure(nodeClass);
    const again = await p.ensure(nodeClass);
    // Assess
    expect(name).toMatch(/^prod_\d+$/);
    expect(again).toBe(name);
    const create = iam.commandCalls(CreateInstanceProfileCommand)[0].args[0].input;
    expect(create).toMatchObject({ InstanceProfileName: name, Path: '/karpenter/eu-west-1/prod/default/' });
    expect(create.Tags).toEqual(
      expect.arrayContaining([
        { Key: 'kubernetes.io/cluster/prod', Value: 'owned' },
        { Key: 'eks:eks-cluster-name', Value: 'prod' },
        { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: 'default' },
        { Key: 'topology.kubernetes.io/region', Value: 'eu-west-1' },
        { Key: 'team', Value: 'platform' },
      ]),
    );
    expect(iam.commandCalls(AddRoleToInstanceProfileCommand).map((c) => c.args[0].input)).toEqual([
      { InstanceProfileName: name, RoleName: 'KarpenterNodeRole-prod' },
    ]);
    expect(iam.commandCalls(GetInstanceProfileCommand)).toHaveLength(1);
  });

  it("should name a changed role's profile anew and swap a foreign role out of an existing profile", async () => {
    // Prepare
    const p = profiles();
    const first = p.nameFor(nodeClass, 'RoleA');
    const second = p.nameFor(nodeClass, 'RoleB');
    iam.on(GetInstanceProfileCommand).resolves({ InstanceProfile: { InstanceProfileName: second, Roles: [{ RoleName: 'Other' }] } as never });
    // Act
    await p.ensure({ ...nodeClass, role: 'RoleB' });
    // Assess
    expect(first).not.toBe(second);
    expect(iam.commandCalls(RemoveRoleFromInstanceProfileCommand).map((c) => c.args[0].input)).toEqual([{ InstanceProfileName: second, RoleName: 'Other' }]);
    expect(iam.commandCalls(AddRoleToInstanceProfileCommand).map((c) => c.args[0].input.RoleName)).toEqual(['RoleB']);
  });

  it('should use a profile another invocation created meanwhile, and name the class, profile and role when IAM refuses', async () => {
    // Prepare
    iam
      .on(GetInstanceProfileCommand)
      .rejectsOnce(missing())
      .resolves({ InstanceProfile: { Roles: [{ RoleName: 'KarpenterNodeRole-prod' }] } as never });
    iam.on(CreateInstanceProfileCommand).rejects(new EntityAlreadyExistsException({ $metadata: {}, message: 'exists' }));
    // Act
    await profiles().ensure(nodeClass);
    iam.reset();
    iam.on(GetInstanceProfileCommand).rejects(Object.assign(new Error('not authorized to perform: iam:GetInstanceProfile'), { name: 'AccessDenied' }));
    const denied = profiles().ensure(nodeClass);
    // Assess
    expect(iam.commandCalls(AddRoleToInstanceProfileCommand)).toHaveLength(0);
    await expect(denied).rejects.toMatchObject({
      name: 'InstanceProfileError',
      message: expect.stringMatching(/EC2NodeClass default: instance profile prod_\d+ for role KarpenterNodeRole-prod: AccessDenied/),
    });
  });

  it('should refuse a role or a given profile this deployment may not pass to EC2, naming both roles and the fix, before any write', async () => {
    // Prepare: iam:PassRole is granted for the deploy's node role only
    iam.on(GetInstanceProfileCommand).resolves({ InstanceProfile: { InstanceProfileName: 'team-a', Roles: [{ RoleName: 'TeamARole' }] } as never });
    const p = new InstanceProfiles({
      iam: new IAMClient({ region: 'eu-west-1' }),
      clusterName: 'prod',
      region: 'eu-west-1',
      now: () => 0,
      nodeRoleName: 'KarpenterNodeRole-prod',
    });
    // Act
    const byRole = await p.ensure({ ...nodeClass, role: 'arn:aws:iam::111122223333:role/TeamARole' }).catch((e: Error) => e.message);
    const byProfile = await p.checkGiven('team-a', 'team-a').catch((e: Error) => e.message);
    const ours = await p.ensure(nodeClass);
    // Assess
    expect(byRole).toBe(
      'EC2NodeClass default: spec.role "TeamARole" is not the node role this deployment may pass to EC2 (iam:PassRole is granted for "KarpenterNodeRole-prod" only): use role "KarpenterNodeRole-prod", or deploy with --param="nodeRoleName=TeamARole"',
    );
    expect(byProfile).toMatch(/^EC2NodeClass team-a: spec.instanceProfile team-a \(role\) "TeamARole" is not the node role/);
    expect(ours).toMatch(/^prod_\d+$/);
    expect(iam.commandCalls(CreateInstanceProfileCommand)).toHaveLength(0);
  });

  it("should delete only this cluster's profiles whose class is gone and unused", async () => {
    // Prepare
    iam.on(ListInstanceProfilesCommand).resolves({
      InstanceProfiles: [
        { InstanceProfileName: 'prod_1', Path: '/karpenter/eu-west-1/prod/gone/', Roles: [{ RoleName: 'R' }] },
        { InstanceProfileName: 'prod_2', Path: '/karpenter/eu-west-1/prod/default/', Roles: [{ RoleName: 'R' }] },
        { InstanceProfileName: 'prod_3', Path: '/karpenter/eu-west-1/prod/draining/', Roles: [] },
      ] as never,
      IsTruncated: false,
    });
    // Act
    const deleted = await profiles().collect(new Set(['default']), new Set(['draining']));
    // Assess
    expect(deleted).toEqual(['prod_1']);
    expect(iam.commandCalls(ListInstanceProfilesCommand)[0].args[0].input.PathPrefix).toBe('/karpenter/eu-west-1/prod/');
    expect(iam.commandCalls(RemoveRoleFromInstanceProfileCommand).map((c) => c.args[0].input)).toEqual([{ InstanceProfileName: 'prod_1', RoleName: 'R' }]);
    expect(iam.commandCalls(DeleteInstanceProfileCommand).map((c) => c.args[0].input)).toEqual([{ InstanceProfileName: 'prod_1' }]);
  });
});
