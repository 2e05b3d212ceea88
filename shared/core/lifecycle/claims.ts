/** Small helpers over NodeClaims, pools and classes shared by the lifecycle use cases. */
import { NodeClaimNotFoundError, NodeClassNotReadyError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import type { EC2NodeClass, NodeClaim, NodeClaimCondition, NodePool } from '../model/karpenter';
import { Label } from '../model/labels';
import { Requirements } from '../scheduling/requirements';
import { typeMatches } from '../scheduling/template';
import type { ClusterClient, ClusterSnapshot } from '../ports';
import { wholeSecond, type EpochMs } from '../time';

export async function requireNodeClaim(cluster: ClusterClient, name: string): Promise<NodeClaim> {
  const claim = await cluster.getNodeClaim(name);
  if (!claim) throw new NodeClaimNotFoundError(`nodeclaim "${name}" not found`);
  return claim;
}

/**
 * The claim's NodePool and EC2NodeClass. A standalone claim (applied by a user, no `karpenter.sh/nodepool`) has no
 * pool: its class is named by its nodeClassRef.
 */
export function poolAndClassOf(
  snapshot: Pick<ClusterSnapshot, 'nodePools' | 'nodeClasses'>,
  poolName: string,
  nodeClassName?: string,
): { nodePool?: NodePool; nodeClass: EC2NodeClass } {
  if (poolName === '' && nodeClassName) {
    const nodeClass = snapshot.nodeClasses.find((c) => c.name === nodeClassName);
    if (!nodeClass) throw new NodeClassNotReadyError(`ec2nodeclass "${nodeClassName}" not found`);
    return { nodeClass };
  }
  const nodePool = snapshot.nodePools.find((p) => p.name === poolName);
  if (!nodePool) throw new NodeClassNotReadyError(`nodepool "${poolName}" not found`);
  const className = nodeClassName ?? nodePool.template.nodeClassRef.name;
  const nodeClass = snapshot.nodeClasses.find((c) => c.name === className);
  if (!nodeClass) throw new NodeClassNotReadyError(`ec2nodeclass "${className}" (of nodepool "${poolName}") not found`);
  return { nodePool, nodeClass };
}

export function cheapestAvailablePrice(it: InstanceType): number {
  const prices = it.offerings.filter((o) => o.available).map((o) => o.price);
  return prices.length ? Math.min(...prices) : Number.POSITIVE_INFINITY;
}

/**
 * The instance types a claim allows, as Karpenter's Create filters them: compatible with its requirements, with an
 * available offering, and room for its resource requests. Its `instance-type In [...]` order is kept; otherwise
 * cheapest first (a standalone claim names no types).
 */
export function instanceTypesForClaim(claim: NodeClaim, all: InstanceType[]): InstanceType[] {
  const reqs = Requirements.fromNodeSelector(claim.spec.requirements);
  const requests = claim.spec.resources.requests;
  const fits = (it: InstanceType) => Object.keys(requests).every((k) => !(requests[k] > 0) || (it.allocatable[k] ?? 0) >= requests[k]);
  const allowed = (it: InstanceType) => typeMatches(it, reqs) && fits(it);
  const req = claim.spec.requirements.find((r) => r.key === Label.instanceType && r.operator === 'In');
  if (req?.values?.length) {
    const byName = new Map(all.map((it) => [it.name, it]));
    return req.values.map((v) => byName.get(v)).filter((it): it is InstanceType => it !== undefined && allowed(it));
  }
  return all.filter((it) => allowed(it) && it.offerings.some((o) => o.available)).sort((a, b) => cheapestAvailablePrice(a) - cheapestAvailablePrice(b));
}

export function condition(type: string, status: NodeClaimCondition['status'], nowMs: EpochMs, reason?: string, message?: string): NodeClaimCondition {
  return { type, status, lastTransitionTime: wholeSecond(nowMs), ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}
