/**
 * One garbage-collection run (docs/karpenter-reference.md §6.2, §6.5): terminates cluster-tagged instances no
 * NodeClaim owns, removes NodeClaims whose instance is gone, ends claims that did not launch (5 min) or
 * register (15 min) in time, reconciles deletions, stale taints and EC2NodeClass statuses, and cleans up
 * instance profiles and launch templates of deleted node classes. Decisions are in ./decide.ts.
 *
 * It reads what it needs, no more: the cloud's instances first, then only Nodes, NodeClaims, NodePools and
 * EC2NodeClasses (no pods, PDBs or volumes), and one NodeClaim by name per orphan candidate.
 */
import type { CloudProvider, ClusterClient, Clock, StateStore, WorkflowStarter } from '../ports';
import type { LifecycleLogger } from '../lifecycle/deps';
import { reconcileDeletions, type DeletionOutcome } from '../lifecycle/deletions';
import { reconcileNodeClassStatuses } from '../lifecycle/nodeclass-status';
import { reconcileNodePoolStatuses } from '../lifecycle/nodepool-status';
import type { EC2NodeClass } from '../model/karpenter';
import { reconcileNodeClassFinalizers } from '../lifecycle/nodeclass-termination';
import { reconcileHashStamps } from '../lifecycle/hash-stamps';
import { sweepStaleTaints } from '../lifecycle/stale-taints';
import { decideGarbageCollection, type GarbageCollectionAction, type GarbageCollectionTimings } from './decide';
import { executeGarbageCollection, type ActionOutcome } from './execute';

export interface GarbageCollectionDeps {
  cluster: ClusterClient;
  cloud: CloudProvider;
  store: StateStore;
  clock: Clock;
  /** Structured logger: in production the Powertools Logger through `lifecycleLogger()`. */
  log: LifecycleLogger;
  clusterName: string;
  timings?: Partial<GarbageCollectionTimings>;
  /** Starts `terminate` for deleted NodeClaims and Nodes; without it, deletions are left alone. */
  workflows?: WorkflowStarter;
  /** Refreshes the region's on-demand list prices in the state store when they are older than 12 h. */
  prices?: { refreshIfStale(): Promise<{ refreshed: boolean; types: number }> };
  /** Deletes managed instance profiles of node classes that are gone and no NodeClaim uses. */
  instanceProfiles?: { collect(liveClasses: ReadonlySet<string>, classesInUse: ReadonlySet<string>): Promise<string[]> };
  /** Deletes this cluster's launch templates of deleted node classes, and stale ones. */
  launchTemplates?: { collect(liveClasses: ReadonlySet<string>): Promise<string[]> };
}

export interface GarbageCollectionResult {
  actions: { type: GarbageCollectionAction['type']; target: string; outcome: ActionOutcome | 'failed' }[];
  failed: number;
  /** What was done about NodeClaims and Nodes being deleted (empty without `workflows`). */
  deletions: { type: DeletionOutcome['action']['type']; target: string; outcome: DeletionOutcome['result'] }[];
  /** Nodes whose `karpenter.sh/disrupted` taint outlived its execution (shared/core/lifecycle/stale-taints.ts). */
  staleTaintsRemoved: string[];
}

function targetOf(action: GarbageCollectionAction): string {
  return action.type === 'terminateOrphanInstance' ? action.instanceId : action.nodeClaim;
}

export async function runGarbageCollection(deps: GarbageCollectionDeps): Promise<GarbageCollectionResult> {
  // The cloud first, as Karpenter's instance garbage collection: a claim created while EC2 is listed is still read.
  const instances = await deps.cloud.list();
  const snapshot = await deps.cluster.listObjects(['nodes', 'nodeClaims', 'nodePools', 'nodeClasses']);
  const actions = decideGarbageCollection({
    clusterName: deps.clusterName,
    now: deps.clock.now(),
    instances,
    nodeClaims: snapshot.nodeClaims,
    nodes: snapshot.nodes,
    ...(deps.timings ? { timings: deps.timings } : {}),
  });
  const results: GarbageCollectionResult['actions'] = [];
  for (const action of actions) {
    try {
      results.push({ type: action.type, target: targetOf(action), outcome: await executeGarbageCollection(deps, action) });
    } catch (error) {
      deps.log.error('garbage collection action failed', { action: action.type, target: targetOf(action), error });
      results.push({ type: action.type, target: targetOf(action), outcome: 'failed' });
    }
  }
  const deletions = deps.workflows
    ? await reconcileDeletions({ cluster: deps.cluster, workflows: deps.workflows, log: deps.log, clock: deps.clock }, snapshot)
    : [];
  const swept = deps.workflows
    ? await sweepStaleTaints({ cluster: deps.cluster, workflows: deps.workflows, log: deps.log }, snapshot).catch((error: unknown) => {
        deps.log.error('stale taint sweep failed', { error });
        return [] as string[];
      })
    : [];
  // EC2NodeClass status (resolved subnets, security groups, AMIs, instance profile, conditions), as Karpenter's
  // nodeclass controller keeps it; NodePools follow its Ready.
  const readiness = new Map<string, NonNullable<EC2NodeClass['ready']>>();
  const nodeClassesWritten = await reconcileNodeClassStatuses({ cloud: deps.cloud, cluster: deps.cluster, log: deps.log }, snapshot, readiness);
  if (nodeClassesWritten.length) deps.log.info('updated ec2nodeclass status', { ec2nodeclasses: nodeClassesWritten.join(', ') });
  // NodePools follow their class's Ready as just written (READY in `kubectl get nodepools` agrees with it).
  const nodeClasses = snapshot.nodeClasses.map((c) => (readiness.has(c.name) ? { ...c, ready: readiness.get(c.name) } : c));
  await reconcileNodePoolStatuses({ cluster: deps.cluster, log: deps.log }, { ...snapshot, nodeClasses });
  // The termination finalizer: a deleted class waits for the claims that use it.
  await reconcileNodeClassFinalizers({ cluster: deps.cluster, log: deps.log }, snapshot);
  // Drift hashes recorded on each pool and class; claims re-stamped after a hash version change.
  await reconcileHashStamps({ cluster: deps.cluster, log: deps.log }, snapshot);
  if (deps.launchTemplates) {
    try {
      const deleted = await deps.launchTemplates.collect(new Set(snapshot.nodeClasses.map((c) => c.name)));
      if (deleted.length) deps.log.info('deleted launch templates', { launchTemplates: deleted.join(', '), count: deleted.length });
    } catch (error) {
      deps.log.warn('launch template cleanup failed; retried next run', { error });
    }
  }
  if (deps.instanceProfiles) {
    try {
      const live = new Set(snapshot.nodeClasses.map((c) => c.name));
      const inUse = new Set(snapshot.nodeClaims.map((c) => c.spec.nodeClassRef.name));
      const deleted = await deps.instanceProfiles.collect(live, inUse);
      for (const name of deleted) deps.log.info('deleted instance profile of a deleted node class', { instanceProfile: name });
    } catch (error) {
      deps.log.warn('instance profile cleanup failed; retried next run', { error });
    }
  }
  if (deps.prices) {
    try {
      const r = await deps.prices.refreshIfStale();
      if (r.refreshed) deps.log.info('refreshed on-demand prices from the Price List API', { types: r.types });
    } catch (error) {
      deps.log.warn('on-demand prices not refreshed; the stored (or bundled) prices stay in use', { error });
    }
  }
  const failed = results.filter((r) => r.outcome === 'failed').length + deletions.filter((d) => d.result === 'failed').length;
  deps.log.info('garbage collection finished', {
    instances: instances.length,
    nodeClaims: snapshot.nodeClaims.length,
    actions: results.length,
    deletions: deletions.length,
    failed,
  });
  return {
    actions: results,
    failed,
    deletions: deletions.map((d) => ({ type: d.action.type, target: d.action.nodeClaimName, outcome: d.result })),
    staleTaintsRemoved: swept,
  };
}
