/** "Add capacity now": NodeClaims built straight from a NodePool's template, each launched by its own execution. */
import { ExecutionInputInvalidError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import type { NodeClaim, NodePool } from '../model/karpenter';
import { Annotation, Finalizer, Label } from '../model/labels';
import { cheapestAvailablePrice, poolAndClassOf } from './claims';
import type { LifecycleDeps } from './deps';
import { nodeClaimName } from './names';

const MAX_INSTANCE_TYPES = 60;

/** A claim for `pool` allowing its cheapest available compatible types (Karpenter's 60-type cap). */
export function claimFromPool(pool: NodePool, instanceTypes: InstanceType[], name: string, nowMs: number): NodeClaim {
  const types = instanceTypes
    .filter((it) => it.offerings.some((o) => o.available))
    .sort((a, b) => cheapestAvailablePrice(a) - cheapestAvailablePrice(b) || a.name.localeCompare(b.name))
    .slice(0, MAX_INSTANCE_TYPES);
  const requirements = pool.template.requirements.filter((r) => r.key !== Label.instanceType || r.operator !== 'In');
  requirements.push({ key: Label.instanceType, operator: 'In', values: types.map((t) => t.name) });
  return {
    name,
    labels: { ...pool.template.labels, [Label.nodePool]: pool.name, [Label.ec2NodeClass]: pool.template.nodeClassRef.name },
    annotations: { ...pool.template.annotations, ...(pool.hash ? { [Annotation.nodePoolHash]: pool.hash } : {}) },
    nodePool: pool.name,
    spec: {
      taints: pool.template.taints,
      startupTaints: pool.template.startupTaints,
      requirements,
      resources: { requests: {} },
      nodeClassRef: pool.template.nodeClassRef,
      expireAfter: pool.template.expireAfter,
      terminationGracePeriod: pool.template.terminationGracePeriod,
    },
    status: { conditions: [] },
    creationTimestamp: Math.floor(nowMs / 1000),
    finalizers: [Finalizer.termination],
  };
}

/**
 * Creates `count` claims from the pool and starts one `launch` execution per claim (named after it).
 * Names derive from `seed` (the execution name), so a retried Task creates the same claims.
 */
export async function createClaimsFromPool(deps: LifecycleDeps, input: { nodePool: string; count: number; seed: string }): Promise<{ nodeClaims: string[] }> {
  const snapshot = await deps.cluster.snapshot();
  if (!snapshot.nodePools.some((p) => p.name === input.nodePool)) {
    throw new ExecutionInputInvalidError(`launch execution input nodePool: nodepool "${input.nodePool}" does not exist`);
  }
  const { nodePool, nodeClass } = poolAndClassOf(snapshot, input.nodePool);
  const limit = nodePool.limits.nodes;
  if (limit !== undefined) {
    const inPool = snapshot.nodeClaims.filter((c) => c.nodePool === nodePool.name && c.deletionTimestamp === undefined).length;
    if (inPool + input.count > limit) {
      throw new ExecutionInputInvalidError(`launch execution input count: nodepool "${nodePool.name}" allows ${limit} node(s) and has ${inPool}; ${input.count} more would exceed its limit`);
    }
  }
  const instanceTypes = await deps.cloud.instanceTypes(nodeClass, nodePool);
  const now = deps.clock.now();
  const names: string[] = [];
  for (let i = 0; i < input.count; i++) {
    const name = nodeClaimName(nodePool.name, [input.seed], 0, i);
    const claim = claimFromPool(nodePool, instanceTypes, name, now);
    await deps.cluster.createNodeClaim(claim);
    deps.log.info('created nodeclaim', {
      nodeclaim: name, nodepool: nodePool.name, requests: claim.spec.resources.requests,
      'instance-types': (claim.spec.requirements.find((r) => r.key === Label.instanceType)?.values ?? []).slice(0, 5).join(', '),
    });
    await deps.workflows.start('launch', name, { nodeClaimName: name });
    names.push(name);
  }
  await deps.store.audit({ at: now, kind: 'provisioning', action: 'manual-capacity', reason: 'Manual', nodeClaims: names });
  return { nodeClaims: names };
}
