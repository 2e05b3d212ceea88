/**
 * Instance profiles managed from an EC2NodeClass `role`, as Karpenter manages them: a class that names a role
 * and no `instanceProfile` gets a profile named `<cluster>_<hash>` under the path
 * `/karpenter/<region>/<cluster>/<node class>/`, tagged for the cluster, the region and the node class, holding
 * that one role (a different role is swapped out). The name hashes region, class and role, so a role change
 * gets a new profile, as Karpenter creates a new one, and the old one stays for the instances launched with it.
 * Garbage collection deletes the profiles of node classes that no longer exist, once no NodeClaim uses the
 * class — only under this cluster's path.
 */
import { createHash } from 'node:crypto';
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  paginateListInstanceProfiles,
  RemoveRoleFromInstanceProfileCommand,
  type IAMClient,
  type InstanceProfile,
} from '@aws-sdk/client-iam';
import { nodeClassRoleName, type EC2NodeClass } from '../../../core/model/karpenter';
import { errorText } from '../errors';

/** How long a container trusts that a profile it ensured still exists with its role. */
const PROFILE_CACHE_TTL_MS = 15 * 60_000;

class InstanceProfileError extends Error {
  override readonly name = 'InstanceProfileError' as const;
}

const errName = (e: unknown): string => (e as { name?: string } | null)?.name ?? '';

export interface InstanceProfilesDeps {
  iam: IAMClient;
  clusterName: string;
  region: string;
  now: () => number;
  /**
   * The node role this deployment may pass to EC2 (its `iam:PassRole` is granted for that role only: the
   * `nodeRoleName` deploy parameter). A node class naming another role is refused before any IAM call, with a
   * message that names both; unset, any role is tried.
   */
  nodeRoleName?: string;
  /** Shadow mode: compute names, read, never create, repair or delete. */
  readOnly?: boolean;
}

export class InstanceProfiles {
  private readonly ensured = new Map<string, number>();

  constructor(private readonly deps: InstanceProfilesDeps) {}

  /** The path every managed profile of this cluster lives under. */
  pathPrefix(): string {
    return `/karpenter/${this.deps.region}/${this.deps.clusterName}/`;
  }

  /** The managed profile's name for a class and role (IAM: ≤ 128 of `[\w+=,.@-]`). */
  nameFor(nodeClass: Pick<EC2NodeClass, 'name'>, role: string): string {
    const h = createHash('sha256').update(`${this.deps.region}|${nodeClass.name}|${role}`).digest();
    const cluster = this.deps.clusterName.replace(/[^\w+=,.@-]/g, '-').slice(0, 100);
    return `${cluster}_${h.readBigUInt64BE(0).toString()}`;
  }

  /** Creates (or repairs) the class's profile and returns its name. Throws InstanceProfileError naming what failed. */
  async ensure(nodeClass: Pick<EC2NodeClass, 'name' | 'role' | 'tags'>): Promise<string> {
    const role = nodeClass.role;
    if (!role) throw new InstanceProfileError(`EC2NodeClass ${nodeClass.name}: neither spec.role nor spec.instanceProfile is set`);
    this.checkPassable(nodeClass.name, 'spec.role', nodeClassRoleName(role));
    const name = this.nameFor(nodeClass, role);
    // Shadow mode: the profile's name as it would be; nothing is created in IAM.
    if (this.deps.readOnly) return name;
    const at = this.ensured.get(name);
    if (at !== undefined && this.deps.now() - at < PROFILE_CACHE_TTL_MS) return name;
    try {
      let profile = await this.get(name);
      if (!profile) profile = await this.create(nodeClass, name);
      // An instance profile holds one role; IAM wants the role's name without its path.
      const roleName = nodeClassRoleName(role);
      const current = (profile.Roles ?? []).map((r) => r.RoleName);
      for (const other of current.filter((r) => r !== roleName)) {
        await this.deps.iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: other }));
      }
      if (!current.includes(roleName)) await this.deps.iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: roleName }));
    } catch (e) {
      if (e instanceof InstanceProfileError) throw e;
      throw new InstanceProfileError(`EC2NodeClass ${nodeClass.name}: instance profile ${name} for role ${role}: ${errorText(e)}`, { cause: e });
    }
    this.ensured.set(name, this.deps.now());
    return name;
  }

  /**
   * A profile named by `spec.instanceProfile` (or the deploy's default) whose role this deployment may not pass:
   * every launch with it would be denied (`iam:PassRole` on CreateFleet). Read once per TTL per profile; a profile
   * that cannot be read is left to the launch to report.
   */
  async checkGiven(nodeClassName: string, profileName: string): Promise<void> {
    if (!this.deps.nodeRoleName) return;
    const key = `given:${profileName}`;
    const at = this.ensured.get(key);
    if (at !== undefined && this.deps.now() - at < PROFILE_CACHE_TTL_MS) return;
    const profile = await this.get(profileName).catch(() => undefined);
    const roles = (profile?.Roles ?? []).map((r) => r.RoleName ?? '');
    for (const r of roles) this.checkPassable(nodeClassName, `spec.instanceProfile ${profileName} (role)`, r);
    if (profile) this.ensured.set(key, this.deps.now());
  }

  private checkPassable(nodeClassName: string, field: string, roleName: string): void {
    const allowed = this.deps.nodeRoleName;
    if (!allowed || roleName === allowed) return;
    throw new InstanceProfileError(
      `EC2NodeClass ${nodeClassName}: ${field} "${roleName}" is not the node role this deployment may pass to EC2 ` +
        `(iam:PassRole is granted for "${allowed}" only): use role "${allowed}", or deploy with --param="nodeRoleName=${roleName}"`,
    );
  }

  private async get(name: string): Promise<InstanceProfile | undefined> {
    try {
      return (await this.deps.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile;
    } catch (e) {
      if (errName(e) === 'NoSuchEntityException' || errName(e) === 'NoSuchEntity') return undefined;
      throw e;
    }
  }

  private async create(nodeClass: Pick<EC2NodeClass, 'name' | 'tags'>, name: string): Promise<InstanceProfile> {
    const tags: Record<string, string> = {
      ...(nodeClass.tags ?? {}),
      [`kubernetes.io/cluster/${this.deps.clusterName}`]: 'owned',
      'eks:eks-cluster-name': this.deps.clusterName,
      'karpenter.k8s.aws/ec2nodeclass': nodeClass.name,
      'topology.kubernetes.io/region': this.deps.region,
    };
    try {
      const out = await this.deps.iam.send(
        new CreateInstanceProfileCommand({
          InstanceProfileName: name,
          Path: `${this.pathPrefix()}${nodeClass.name}/`,
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
      return out.InstanceProfile ?? ({ InstanceProfileName: name, Roles: [] } as unknown as InstanceProfile);
    } catch (e) {
      // Another invocation created it meanwhile: use that one.
      if (errName(e) === 'EntityAlreadyExistsException' || errName(e) === 'EntityAlreadyExists')
        return (await this.get(name)) ?? ({ InstanceProfileName: name, Roles: [] } as unknown as InstanceProfile);
      throw e;
    }
  }

  /**
   * Deletes this cluster's managed profiles whose node class is gone and has no NodeClaim left (the instances
   * launched with it are gone too). Returns the names deleted.
   */
  async collect(liveClasses: ReadonlySet<string>, classesInUse: ReadonlySet<string>): Promise<string[]> {
    const deleted: string[] = [];
    if (this.deps.readOnly) return deleted;
    for await (const page of paginateListInstanceProfiles({ client: this.deps.iam }, { PathPrefix: this.pathPrefix() })) {
      for (const p of page.InstanceProfiles ?? []) {
        const cls = (p.Path ?? '').slice(this.pathPrefix().length).replace(/\/$/, '');
        if (!cls || liveClasses.has(cls) || classesInUse.has(cls) || !p.InstanceProfileName) continue;
        for (const r of p.Roles ?? [])
          await this.deps.iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: p.InstanceProfileName, RoleName: r.RoleName }));
        await this.deps.iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: p.InstanceProfileName }));
        this.ensured.delete(p.InstanceProfileName);
        deleted.push(p.InstanceProfileName);
      }
    }
    return deleted;
  }
}
