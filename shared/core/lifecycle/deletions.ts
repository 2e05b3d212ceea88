/**
 * `kubectl delete nodeclaim|node` (docs/karpenter-reference.md §6.6). Both objects carry `karpenter.sh/termination`, so a delete
 * only sets `deletionTimestamp`; this decides what nodewright does about it, as Karpenter's termination and
 * nodeclaim lifecycle controllers do:
 *
 * - a NodeClaim being deleted (with our finalizer) whose termination has not started → start `terminate` for
 *   it (taint, drain honouring PDBs, do-not-disrupt and terminationGracePeriod, terminate the instance, then
 *   FinalizeNodeClaim removes the finalizers and both objects go);
 * - a Node being deleted whose NodeClaim is alive → delete the NodeClaim, which then terminates as above;
 * - a Node being deleted with no NodeClaim is not ours → nothing.
 *
 * "Termination has started" is visible as the `karpenter.sh/disrupted:NoSchedule` taint on the claim's Node:
 * TaintNode (terminate) and TaintCandidates (disrupt) put it there before anything else. A claim without a
 * Node (never registered) has nothing to taint; there, and everywhere, the execution name is derived from the
 * claim's name and its deletionTimestamp, so a repeated decision is a no-op StartExecution.
 */
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Finalizer, TaintKey } from '../model/labels';
import type { Clock, ClusterClient, ClusterSnapshot, ExecutionStatus, WorkflowStarter } from '../ports';
import type { LifecycleLogger } from './deps';
import { executionName } from './names';
import { toSeconds, type EpochMs } from '../time';

export type DeletionAction =
  | { type: 'terminate'; nodeClaimName: string; nodeName?: string; deletionTimestamp: EpochMs; executionName: string }
  | { type: 'deleteNodeClaim'; nodeClaimName: string; nodeName: string };

/** The reason a `terminate` started for a deleted object carries. */
const DELETED_REASON = 'Deleted';

/** `terminate` execution name for a claim deleted at `deletionTimestamp` (named by its seconds since the epoch). */
export const deletionExecutionName = (nodeClaimName: string, deletionTimestamp: EpochMs): string =>
  executionName(nodeClaimName, 'deleted', String(toSeconds(deletionTimestamp)));

/** The Node of a claim (by provider ID, else by the node name it recorded). */
export function nodeOf(claim: NodeClaim, nodes: readonly Node[]): Node | undefined {
  return nodes.find(
    (n) => (!!claim.status.providerID && n.providerID === claim.status.providerID) || (!!claim.status.nodeName && n.name === claim.status.nodeName),
  );
}

function claimOf(node: Node, claims: readonly NodeClaim[]): NodeClaim | undefined {
  return claims.find((c) => (!!node.providerID && c.status.providerID === node.providerID) || c.status.nodeName === node.name);
}

const terminationStarted = (node: Node | undefined) => !!node && node.taints.some((t) => t.key === TaintKey.disrupted);

/** What to do about deleted NodeClaims and Nodes. Pure; one action per object at most, in name order. */
export function decideDeletions(snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>): DeletionAction[] {
  const actions: DeletionAction[] = [];
  const claims = [...snapshot.nodeClaims].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const claim of claims) {
    if (claim.deletionTimestamp === undefined || !claim.finalizers.includes(Finalizer.termination)) continue;
    const node = nodeOf(claim, snapshot.nodes);
    if (terminationStarted(node)) continue;
    actions.push({
      type: 'terminate',
      nodeClaimName: claim.name,
      ...(node ? { nodeName: node.name } : {}),
      deletionTimestamp: claim.deletionTimestamp,
      executionName: deletionExecutionName(claim.name, claim.deletionTimestamp),
    });
  }
  const nodes = [...snapshot.nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const node of nodes) {
    if (node.deletionTimestamp === undefined) continue;
    const claim = claimOf(node, snapshot.nodeClaims);
    if (!claim || claim.deletionTimestamp !== undefined) continue;
    actions.push({ type: 'deleteNodeClaim', nodeClaimName: claim.name, nodeName: node.name });
  }
  return actions;
}

export interface DeletionDeps {
  cluster: Pick<ClusterClient, 'deleteNodeClaim' | 'getNodeClaim'>;
  workflows: WorkflowStarter;
  log: LifecycleLogger;
  clock: Pick<Clock, 'now'>;
}

export interface DeletionOutcome {
  action: DeletionAction;
  result: 'started' | 'alreadyStarted' | 'deleted' | 'failed';
  /** The execution started or found, when it is a later attempt than `action.executionName`. */
  execution?: string;
  error?: string;
}

/** Attempts of one deletion's termination: the first is `action.executionName`, then `<name>-attempt-N`. */
const MAX_TERMINATION_ATTEMPTS = 100;
const ENDED_BADLY: ReadonlySet<ExecutionStatus> = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/** How long after attempt `n` failed the next one starts: 1 min, doubling, at most 30 min. */
const terminationRetryDelayMs = (n: number): number => Math.min(30 * 60_000, 60_000 * 2 ** Math.max(0, n - 1));

/**
 * A deleted NodeClaim is terminated until it is gone, as Karpenter's termination controller keeps draining a
 * deleting node: when the attempt under a name has failed (a drain still blocked at its deadline, a step failed
 * after its retries; the node was untainted by ReleaseNode), the next attempt starts under the next name once its
 * back-off has passed — an execution name cannot be reused for 90 days. A starter that cannot tell an execution's
 * status (only the deployed one can) never retries.
 */
async function startTermination(
  deps: DeletionDeps,
  action: Extract<DeletionAction, { type: 'terminate' }>,
): Promise<{ started: boolean; name: string; attempt: number }> {
  const input = { nodeClaimName: action.nodeClaimName, reason: DELETED_REASON };
  for (let attempt = 1; ; attempt++) {
    const name = attempt === 1 ? action.executionName : executionName(action.executionName, 'attempt', String(attempt));
    const r = await deps.workflows.start('terminate', name, input);
    if (!r.alreadyStarted) return { started: true, name, attempt };
    const info = await deps.workflows.status?.('terminate', name);
    if (!info || !ENDED_BADLY.has(info.status) || attempt >= MAX_TERMINATION_ATTEMPTS) return { started: false, name, attempt };
    const retryAt = (info.stoppedAt ?? 0) + terminationRetryDelayMs(attempt);
    if (deps.clock.now() < retryAt) {
      deps.log.info('termination of deleted nodeclaim failed; retrying after back-off', {
        nodeclaim: action.nodeClaimName,
        execution: name,
        status: info.status,
        retryInSeconds: Math.ceil((retryAt - deps.clock.now()) / 1000),
      });
      return { started: false, name, attempt };
    }
  }
}

/**
 * Performs `decideDeletions(snapshot)` through the ports. A NodeClaim deleted for its Node is re-read and its
 * termination started in the same call. Each action stands alone: a failure is logged and returned, and the
 * next call (the next snapshot) tries again.
 */
export async function reconcileDeletions(deps: DeletionDeps, snapshot: Pick<ClusterSnapshot, 'nodes' | 'nodeClaims'>): Promise<DeletionOutcome[]> {
  const outcomes: DeletionOutcome[] = [];
  const queue = decideDeletions(snapshot);
  const started = new Set<string>();
  while (queue.length > 0) {
    const action = queue.shift() as DeletionAction;
    try {
      if (action.type === 'terminate') {
        if (started.has(action.executionName)) continue;
        started.add(action.executionName);
        const r = await startTermination(deps, action);
        if (r.started) {
          deps.log.info('terminating deleted nodeclaim', {
            nodeclaim: action.nodeClaimName,
            node: action.nodeName,
            execution: r.name,
            reason: DELETED_REASON,
            ...(r.attempt > 1 ? { attempt: r.attempt } : {}),
          });
        }
        outcomes.push({ action, result: r.started ? 'started' : 'alreadyStarted', ...(r.name !== action.executionName ? { execution: r.name } : {}) });
      } else {
        await deps.cluster.deleteNodeClaim(action.nodeClaimName);
        deps.log.info('deleting nodeclaim of deleted node', { nodeclaim: action.nodeClaimName, node: action.nodeName });
        outcomes.push({ action, result: 'deleted' });
        const fresh = await deps.cluster.getNodeClaim(action.nodeClaimName);
        if (fresh) queue.push(...decideDeletions({ nodes: snapshot.nodes, nodeClaims: [fresh] }).filter((a) => a.type === 'terminate'));
      }
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      deps.log.error('failed to handle deleted object', { nodeclaim: action.nodeClaimName, node: action.nodeName, action: action.type, error });
      outcomes.push({ action, result: 'failed', error });
    }
  }
  return outcomes;
}
