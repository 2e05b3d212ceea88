/**
 * Static NodePools (Karpenter v1.8+ `spec.replicas`; Karpenter's static provisioning and deprovisioning
 * controllers): keep each at exactly `replicas` NodeClaims.
 *
 * - Too few: create the missing claims from the pool's template (no pods) and start a `launch` for each,
 *   never past `limits.nodes` (counting claims still terminating). Nodes being disrupted count as present,
 *   so a drift replacement in flight does not make an extra claim.
 * - Too many (`kubectl scale nodepool … --replicas` lower): delete the surplus claims — unlaunched claims
 *   first, then empty nodes (only DaemonSet pods, no do-not-disrupt pod), then the rest by disruption cost
 *   (pods' eviction cost × lifetime left), nodes with a do-not-disrupt pod last. A deleted claim terminates through `terminate` like a
 *   `kubectl delete`: drained honouring PDBs, do-not-disrupt and terminationGracePeriod. No disruption budget
 *   applies (the user asked for it, as with expiration).
 */
import type { InstanceType } from '../instance-types/types';
import type { NodeClaim, NodePool } from '../model/karpenter';
import type { Node, Pod } from '../model/kube';
import { Annotation, TaintKey } from '../model/labels';
import type { ClusterSnapshot } from '../ports';
import { disruptionCost } from '../disruption/pods';
import { isStatic, staticNodeClaim } from '../scheduling/static-claim';
import { nodeOf, reconcileDeletions } from './deletions';
import type { LifecycleDeps } from './deps';
import { nodeClaimName } from './names';
import type { Planner } from './provisioner';
import type { EpochMs } from '../time';

export interface StaticPoolDecision {
  pool: string;
  replicas: number;
  /** Claims counted toward replicas (not deleting, node not being disrupted). */
  running: number;
  /** Claims whose node is being disrupted (a replacement may be on its way). */
  disrupting: number;
  create: number;
  /** Claims to delete, in the order above. */
  delete: string[];
  /** Set when fewer claims are created than missing (limits.nodes). */
  limited?: string;
}

const isTerminal = (p: Pod) => p.phase === 'Succeeded' || p.phase === 'Failed';
const doNotDisrupt = (p: Pod) => p.annotations[Annotation.doNotDisrupt] === 'true';

/** What to do for every static NodePool (pure). */
export function decideStaticPools(snapshot: Pick<ClusterSnapshot, 'nodePools' | 'nodeClaims' | 'nodes' | 'pods'>, nowMs: EpochMs): StaticPoolDecision[] {
  const out: StaticPoolDecision[] = [];
  for (const pool of snapshot.nodePools) {
    if (!isStatic(pool) || pool.deleting || pool.ready === false) continue;
    const replicas = pool.replicas!;
    const all = snapshot.nodeClaims.filter((c) => c.nodePool === pool.name);
    const alive = all.filter((c) => c.deletionTimestamp === undefined);
    const nodeByClaim = new Map(alive.map((c) => [c.name, nodeOf(c, snapshot.nodes)]));
    const disrupting = alive.filter((c) => nodeByClaim.get(c.name)?.taints.some((t) => t.key === TaintKey.disrupted));
    const running = alive.filter((c) => !disrupting.includes(c));
    const d: StaticPoolDecision = { pool: pool.name, replicas, running: running.length, disrupting: disrupting.length, create: 0, delete: [] };
    const missing = replicas - running.length - disrupting.length;
    if (missing > 0) {
      const limit = pool.limits.nodes;
      const room = limit === undefined ? missing : Math.max(0, limit - all.length);
      d.create = Math.min(missing, room);
      if (d.create < missing) d.limited = `limits.nodes ${limit} reached (${all.length} claims)`;
    } else if (running.length > replicas) {
      d.delete = surplus(running, nodeByClaim, snapshot.pods, running.length - replicas, nowMs);
    }
    if (d.create > 0 || d.delete.length > 0 || d.limited) out.push(d);
  }
  return out;
}

function surplus(claims: NodeClaim[], nodeByClaim: Map<string, Node | undefined>, pods: readonly Pod[], count: number, nowMs: EpochMs): string[] {
  const podsOn = new Map<string, Pod[]>();
  for (const p of pods) {
    if (!p.nodeName || isTerminal(p)) continue;
    const l = podsOn.get(p.nodeName);
    if (l) l.push(p);
    else podsOn.set(p.nodeName, [p]);
  }
  const ranked = claims.map((c) => {
    const node = nodeByClaim.get(c.name);
    const onNode = node ? (podsOn.get(node.name) ?? []) : [];
    const workload = onNode.filter((p) => p.owner?.kind !== 'DaemonSet');
    const blocked = onNode.some(doNotDisrupt);
    // 0: never launched; 1: empty; 2: pods, none do-not-disrupt; 3: a do-not-disrupt pod.
    const rank = !c.status.providerID ? 0 : blocked ? 3 : workload.length === 0 ? 1 : 2;
    // Karpenter's disruption cost: Σ pod eviction costs × the fraction of lifetime left.
    return { name: c.name, rank, cost: disruptionCost(workload, c.creationTimestamp, c.spec.expireAfter, nowMs) };
  });
  ranked.sort((a, b) => a.rank - b.rank || a.cost - b.cost || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.name);
}

export interface StaticPoolsResult {
  created: string[];
  deleted: string[];
}

/** Applies `decideStaticPools` through the ports. A failure is logged; the next round tries again. */
export async function reconcileStaticPools(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics' | 'store' | 'workflows'>,
  planner: Pick<Planner, 'plannedClaimToNodeClaim'>,
  snapshot: ClusterSnapshot,
  instanceTypes: (s: ClusterSnapshot) => Promise<Record<string, InstanceType[]>>,
): Promise<StaticPoolsResult> {
  const result: StaticPoolsResult = { created: [], deleted: [] };
  const decisions = decideStaticPools(snapshot, deps.clock.now());
  if (decisions.length === 0) return result;
  const pools = new Map<string, NodePool>(snapshot.nodePools.map((p) => [p.name, p]));
  const needTypes = decisions.some((d) => d.create > 0);
  const types = needTypes ? await instanceTypes(snapshot) : {};
  const now = deps.clock.now();
  for (const d of decisions) {
    const pool = pools.get(d.pool)!;
    if (d.limited) deps.log.warn('nodepool node limit reached', { nodepool: d.pool, replicas: d.replicas, running: d.running, reason: d.limited });
    if (d.create > 0) {
      deps.log.info('provisioning nodeclaims to satisfy replica count', {
        nodepool: d.pool,
        current: d.running,
        desired: d.replicas,
        'provision-count': d.create,
      });
    }
    for (let i = 0; i < d.create; i++) {
      const planned = staticNodeClaim(pool, types[d.pool] ?? [], snapshot.daemonSets, i);
      if (typeof planned === 'string') {
        deps.log.error('cannot create a static nodeclaim', { nodepool: d.pool, reason: planned });
        break;
      }
      try {
        const name = nodeClaimName(d.pool, [`static-${d.running + d.disrupting + i}`], now, i);
        const claim = await deps.cluster.createNodeClaim(planner.plannedClaimToNodeClaim(planned, name, now, pool));
        await deps.workflows.start('launch', claim.name, { nodeClaimName: claim.name });
        deps.log.info('created nodeclaim', { nodeclaim: claim.name, nodepool: d.pool, reason: 'static replicas' });
        deps.metrics.count('karpenter_nodeclaims_created_total', { reason: 'provisioned', nodepool: d.pool, min_values_relaxed: 'false' });
        result.created.push(claim.name);
      } catch (e) {
        deps.log.error('failed to create a static nodeclaim', { nodepool: d.pool, error: e instanceof Error ? e.message : String(e) });
        break;
      }
    }
    if (d.delete.length > 0) {
      deps.log.info('deprovisioning nodeclaims to satisfy replica count', {
        nodepool: d.pool,
        current: d.running,
        desired: d.replicas,
        'deprovision-count': d.delete.length,
      });
    }
    for (const name of d.delete) {
      try {
        await deps.cluster.deleteNodeClaim(name);
        deps.log.info('deleting nodeclaim', { nodeclaim: name, nodepool: d.pool, reason: 'static replicas' });
        result.deleted.push(name);
      } catch (e) {
        deps.log.error('failed to delete a static nodeclaim', { nodeclaim: name, error: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  if (result.deleted.length > 0) {
    // Start their termination now rather than waiting for the controller to see the deletion.
    const fresh = await deps.cluster.snapshot();
    await reconcileDeletions(deps, fresh);
  }
  if (result.created.length + result.deleted.length > 0) {
    await deps.store.audit({
      at: now,
      kind: 'provisioning',
      action: 'static-replicas',
      nodeClaims: [...result.created, ...result.deleted],
      detail: { created: result.created, deleted: result.deleted },
    });
  }
  return result;
}
