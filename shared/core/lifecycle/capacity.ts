/**
 * "Add capacity now": `count` NodeClaims planned through the same scheduling core the provisioner uses — the
 * pool's template (requirements ∪ labels ∪ nodepool, taints, DaemonSet overhead) over the instance types its
 * EC2NodeClass offers, Karpenter's limit rule (a claim's options must fit the remaining limits, the largest
 * option is subtracted) and the provisioner's finalize step (cheapest compatible types first, capacity-type
 * narrowed). Everything is planned before anything is created: a pool that is missing, deleting or not ready,
 * a limit that `count` would exceed (named, with the amount) or no compatible type fails with
 * ExecutionInputInvalidError and no side effect. Each claim is launched by its own `launch` execution.
 */
import { overlaidPoolTypes } from '../instance-types/overlays';
import { ExecutionInputInvalidError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import type { EC2NodeClass, NodeClaim, NodePool } from '../model/karpenter';
import { Label } from '../model/labels';
import { formatResource } from '../model/quantity';
import type { ResourceList } from '../model/resources';
import type { ClusterSnapshot } from '../ports';
import { existingNodesFromSnapshot, plannedClaimToNodeClaim } from '../provisioning/from-snapshot';
import { Dims } from '../scheduling/dims';
import { finalizeClaim } from '../scheduling/finalize';
import { distinctValues, InProgressClaim } from '../scheduling/nodeclaim';
import { buildTemplate } from '../scheduling/template';
import type { PlannedNodeClaim } from '../scheduling/types';
import type { LifecycleDeps } from './deps';
import { nodeClaimName } from './names';
import { applyUnavailable } from './provisionable';
import type { EpochMs } from '../time';

const MAX_INSTANCE_TYPES = 60;

const invalid = (field: string, message: string) => new ExecutionInputInvalidError(`launch execution input ${field}: ${message}`);

/** The pool and its class, or the reason they cannot take a manual launch (pool missing, deleting, not ready). */
export function usablePool(snapshot: Pick<ClusterSnapshot, 'nodePools' | 'nodeClasses'>, poolName: string): { nodePool: NodePool; nodeClass: EC2NodeClass } {
  const nodePool = snapshot.nodePools.find((p) => p.name === poolName);
  if (!nodePool) {
    throw invalid('nodePool', `nodepool "${poolName}" does not exist (known: ${snapshot.nodePools.map((p) => p.name).join(', ') || 'none'})`);
  }
  if (nodePool.deleting) throw invalid('nodePool', `nodepool "${poolName}" is being deleted`);
  if (nodePool.ready === false) throw invalid('nodePool', `nodepool "${poolName}" is not ready`);
  const className = nodePool.template.nodeClassRef.name;
  const nodeClass = snapshot.nodeClasses.find((c) => c.name === className);
  if (!nodeClass) throw invalid('nodePool', `nodepool "${poolName}": its ec2nodeclass "${className}" does not exist`);
  return { nodePool, nodeClass };
}

/** Σ capacity (and node count) of the pool's nodes and in-flight claims, as the provisioner counts them for limits. */
function poolUsage(snapshot: ClusterSnapshot, pool: NodePool, types: InstanceType[], ignoreClaims: ReadonlySet<string>): ResourceList {
  const usage: ResourceList = { nodes: 0 };
  for (const n of existingNodesFromSnapshot(snapshot, { [pool.name]: types })) {
    if (n.nodePool !== pool.name || (n.nodeClaim !== undefined && ignoreClaims.has(n.nodeClaim))) continue;
    for (const k in n.capacity) usage[k] = (usage[k] ?? 0) + n.capacity[k];
    usage.nodes += 1;
  }
  return usage;
}

const fmt = (k: string, v: number) => formatResource(k, v);

/**
 * Plans `names.length` claims for `poolName` (pure). `instanceTypes` are the pool's class's types with the ICE
 * cache applied; claims already named in `names` (a retried Task) do not count against the limits.
 */
function planClaimsFromPool(snapshot: ClusterSnapshot, poolName: string, instanceTypes: InstanceType[], names: string[], nowMs: EpochMs): NodeClaim[] {
  const { nodePool } = usablePool(snapshot, poolName);
  const count = names.length;
  const dims = new Dims(Object.keys(nodePool.limits).filter((k) => k !== 'nodes'));
  const template = buildTemplate(nodePool, instanceTypes, snapshot.daemonSets, dims);
  if (template.options.length === 0) {
    throw invalid(
      'nodePool',
      `no available instance type satisfies nodepool "${poolName}"'s requirements (${instanceTypes.length} type(s) offered by its ec2nodeclass)`,
    );
  }
  for (const r of template.requirements.values()) {
    if (r.minValues === undefined) continue;
    const n = distinctValues(template.options, r.key, template.requirements);
    if (n < r.minValues) throw invalid('nodePool', `nodepool "${poolName}": minValues of ${r.key} not met (${n} < ${r.minValues})`);
  }

  const usage = poolUsage(snapshot, nodePool, instanceTypes, new Set(names));
  const limits = nodePool.limits;
  if (limits.nodes !== undefined && usage.nodes + count > limits.nodes) {
    throw invalid(
      'count',
      `nodepool "${poolName}" limits.nodes is ${limits.nodes} and ${usage.nodes} node(s) are in use; ${count} more would exceed it by ${usage.nodes + count - limits.nodes}`,
    );
  }
  const keys = Object.keys(limits).filter((k) => k !== 'nodes');
  const remaining: ResourceList = {};
  const smallest: ResourceList = {};
  for (const k of keys) {
    remaining[k] = limits[k] - (usage[k] ?? 0);
    smallest[k] = Math.min(...template.options.map((o) => o.it.capacity[k] ?? 0));
    const need = count * smallest[k];
    if (need > remaining[k]) {
      throw invalid(
        'count',
        `nodepool "${poolName}" limits.${k} is ${fmt(k, limits[k])} and ${fmt(k, usage[k] ?? 0)} is in use; ${count} node(s) need at least ${fmt(k, need)} (${fmt(k, smallest[k])} each, the smallest compatible instance type) — ${fmt(k, need - Math.max(remaining[k], 0))} over the limit`,
      );
    }
  }

  const planned: PlannedNodeClaim[] = [];
  for (let i = 0; i < count; i++) {
    // Karpenter's rule (the provisioner's too): only types that fit the remaining limits, the largest one is
    // subtracted. Room is kept for the claims still to plan, at their smallest compatible type.
    const left = count - 1 - i;
    const options = template.options.filter((o) => keys.every((k) => (o.it.capacity[k] ?? 0) <= remaining[k] - left * smallest[k]));
    if (options.length === 0) {
      const room = keys.map((k) => `${k}=${fmt(k, Math.max(remaining[k], 0))}`).join(', ');
      throw invalid('count', `nodepool "${poolName}": no compatible instance type fits its remaining limits (${room}) for node ${i + 1} of ${count}`);
    }
    const claim = new InProgressClaim(template, `manual-placeholder-${i}`, i, template.requirements, options, 'Strict', dims);
    const p = finalizeClaim(claim, MAX_INSTANCE_TYPES);
    for (const k of keys) remaining[k] -= Math.max(...p.instanceTypes.map((t) => t.capacity[k] ?? 0));
    planned.push(p);
  }
  return planned.map((p, i) => plannedClaimToNodeClaim(p, names[i], nowMs, nodePool));
}

/** The pool's instance types (its EC2NodeClass's, NodeOverlays and the ICE cache applied). */
async function poolInstanceTypes(deps: Pick<LifecycleDeps, 'cloud' | 'store' | 'clock'>, snapshot: ClusterSnapshot, poolName: string): Promise<InstanceType[]> {
  const { nodePool, nodeClass } = usablePool(snapshot, poolName);
  const unavailable = await deps.store.unavailableOfferings();
  return applyUnavailable(
    overlaidPoolTypes(snapshot.nodeOverlays, nodePool, await deps.cloud.instanceTypes(nodeClass, nodePool)),
    unavailable,
    deps.clock.now(),
  );
}

/** Claim names of a manual launch: derived from `seed` (the execution name), so a retried Task names the same claims. */
function manualClaimNames(nodePool: string, seed: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => nodeClaimName(nodePool, [seed], 0, i));
}

/** Plans (read-only) what `createClaimsFromPool` would create; throws ExecutionInputInvalidError when it cannot. */
async function planCapacity(
  deps: Pick<LifecycleDeps, 'cluster' | 'cloud' | 'store' | 'clock'>,
  input: { nodePool: string; count: number; seed: string },
): Promise<NodeClaim[]> {
  const snapshot = await deps.cluster.snapshot();
  const types = await poolInstanceTypes(deps, snapshot, input.nodePool);
  return planClaimsFromPool(snapshot, input.nodePool, types, manualClaimNames(input.nodePool, input.seed, input.count), deps.clock.now());
}

/**
 * Creates `count` claims from the pool and starts one `launch` execution per claim (named after it). All
 * claims are planned first: nothing is created unless every one fits. Names derive from `seed` (the
 * execution name), so a retried Task creates the same claims.
 */
export async function createClaimsFromPool(deps: LifecycleDeps, input: { nodePool: string; count: number; seed: string }): Promise<{ nodeClaims: string[] }> {
  const claims = await planCapacity(deps, input);
  const now = deps.clock.now();
  const names: string[] = [];
  for (const planned of claims) {
    const claim = await deps.cluster.createNodeClaim(planned);
    deps.log.info('created nodeclaim', {
      nodeclaim: claim.name,
      nodepool: input.nodePool,
      requests: claim.spec.resources.requests,
      'instance-types': (claim.spec.requirements.find((r) => r.key === Label.instanceType)?.values ?? []).slice(0, 5).join(', '),
    });
    await deps.workflows.start('launch', claim.name, { nodeClaimName: claim.name });
    deps.metrics.count('karpenter_nodeclaims_created_total', { reason: 'manual', nodepool: input.nodePool, min_values_relaxed: 'false' });
    names.push(claim.name);
  }
  await deps.store.audit({ at: now, kind: 'provisioning', action: 'manual-capacity', reason: 'Manual', nodeClaims: names });
  return { nodeClaims: names };
}
