import type { EC2Client } from '@aws-sdk/client-ec2';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { EC2NodeClass } from '../../../core/model/karpenter';
import { NodeClassNotReadyError } from '../../../core/errors';
import { resolveAmis, type ResolvedAmi } from './amis';
import { resolveSecurityGroups, resolveSubnets, type ResolvedSecurityGroup, type ResolvedSubnet } from './selectors';

export interface ResolvedNodeClass {
  subnets: ResolvedSubnet[];
  securityGroups: ResolvedSecurityGroup[];
  /** Newest first, each with its architecture. */
  amis: ResolvedAmi[];
}

const NODE_CLASS_TTL_MS = 60_000;

/** Resolves a node class's selector terms against EC2/SSM, cached for a minute per (name, terms). */
export class NodeClassResolver {
  private readonly cache = new Map<string, { value: ResolvedNodeClass; at: number }>();

  constructor(private readonly deps: { ec2: EC2Client; ssm: SSMClient; now: () => number; k8sVersion: () => Promise<string> }) {}

  async resolve(nodeClass: EC2NodeClass): Promise<ResolvedNodeClass> {
    const key = JSON.stringify([nodeClass.name, nodeClass.subnetSelectorTerms, nodeClass.securityGroupSelectorTerms, nodeClass.amiSelectorTerms]);
    const hit = this.cache.get(key);
    if (hit && this.deps.now() - hit.at < NODE_CLASS_TTL_MS) return hit.value;
    const { subnets, securityGroups, amis } = await this.resolveEach(nodeClass);
    const missing = [
      !subnets.length && 'subnetSelectorTerms',
      !securityGroups.length && 'securityGroupSelectorTerms',
      !amis.length && 'amiSelectorTerms',
    ].filter(Boolean);
    if (missing.length) throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClass.name}: nothing matched ${missing.join(', ')}`);
    const value = { subnets, securityGroups, amis };
    this.cache.set(key, { value, at: this.deps.now() });
    return value;
  }

  /** Each selector resolved on its own, uncached; an empty list where nothing matched (API errors throw). */
  async resolveEach(nodeClass: EC2NodeClass): Promise<ResolvedNodeClass> {
    const needsVersion = nodeClass.amiSelectorTerms.some((t) => t.alias);
    const [subnets, securityGroups, amis] = await Promise.all([
      resolveSubnets(this.deps.ec2, nodeClass.subnetSelectorTerms),
      resolveSecurityGroups(this.deps.ec2, nodeClass.securityGroupSelectorTerms),
      (needsVersion ? this.deps.k8sVersion() : Promise.resolve('')).then((v) => resolveAmis(this.deps, nodeClass.amiSelectorTerms, v)),
    ]);
    return { subnets, securityGroups, amis };
  }

  /** The resolved values in EC2NodeClass `status` form. */
  static toStatus(r: ResolvedNodeClass): NonNullable<EC2NodeClass['status']> {
    return {
      subnets: r.subnets.map((s) => ({ id: s.id, zone: s.zone, zoneID: s.zoneID })),
      securityGroups: r.securityGroups.map((g) => ({ id: g.id, name: g.name })),
      amis: r.amis.map((a) => ({ id: a.id, name: a.name, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [a.arch] }] })),
    };
  }
}
