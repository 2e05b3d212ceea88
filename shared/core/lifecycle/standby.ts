/**
 * Standby capacity in the provisioner (shared/core/buffers/standby.ts decides what is pure): each invocation stops the
 * standby nodes that have joined, finishes the ones started for pods once they are Ready again, and launches the
 * chunks a standby buffer still lacks — claims tainted `nodewright.io/standby` (nothing schedules there) and marked
 * with their buffer and chunk count. A round whose plan places pending pods on a stopped standby node starts it.
 */
import { isStandbyClaim, standbyShortfall, standbyToWake } from '../buffers/standby';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import { Annotation, TaintKey } from '../model/labels';
import type { ClusterSnapshot } from '../ports';
import type { InstanceType } from '../instance-types/types';
import type { Plan } from '../scheduling/types';
import { isNodeClaimNotFoundError } from '../errors';
import type { LifecycleDeps } from './deps';
import { nodeClaimName } from './names';
import type { Planner } from './provisioner';

const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Stops joined standby nodes and clears the mark of started ones that are Ready. Returns whether anything changed. */
async function settle(deps: LifecycleDeps, snapshot: ClusterSnapshot): Promise<boolean> {
  const nodes = new Map(snapshot.nodes.map((n) => [n.name, n]));
  let changed = false;
  for (const c of snapshot.nodeClaims.filter((x) => isStandbyClaim(x) && x.deletionTimestamp === undefined)) {
    const node = c.status.nodeName ? nodes.get(c.status.nodeName) : undefined;
    const state = c.annotations[Annotation.standbyState];
    try {
      if (state === undefined && node?.ready && conditionIsTrue(c, 'Initialized') && c.status.providerID) {
        // Marked first: the instance's state-change events must find it stopped by nodewright, not interrupted.
        await deps.cluster.patchNodeClaimMetadata(c.name, { annotations: { [Annotation.standbyState]: 'stopped' } });
        await deps.cloud.stop(c.status.providerID).catch(async (e: unknown) => {
          await deps.cluster.patchNodeClaimMetadata(c.name, { annotations: { [Annotation.standbyState]: null } });
          throw e;
        });
        deps.log.info('stopped standby node', { nodeclaim: c.name, node: node.name, capacitybuffer: c.annotations[Annotation.standby] });
        changed = true;
      } else if (state === 'starting' && node?.ready && !node.taints.some((t) => t.key === TaintKey.unreachable)) {
        // Started for pending pods and Ready: an ordinary node from now on (the buffer launches its next chunk).
        const clear = { [Annotation.standby]: null, [Annotation.standbyChunks]: null, [Annotation.standbyState]: null };
        await deps.cluster.patchNodeClaimMetadata(c.name, { annotations: clear });
        changed = true;
      }
    } catch (e) {
      if (!isNodeClaimNotFoundError(e)) deps.log.warn('could not settle standby node', { nodeclaim: c.name, error: errorText(e) });
    }
  }
  return changed;
}

/** Launches the chunks each standby buffer lacks, as tainted claims of their own. Returns the claims created. */
async function launchShortfall(
  deps: LifecycleDeps,
  planner: Planner,
  snapshot: ClusterSnapshot,
  typesOf: (s: ClusterSnapshot) => Promise<Record<string, InstanceType[]>>,
): Promise<string[]> {
  const shortfall = standbyShortfall(snapshot.capacityBuffers, snapshot.nodeClaims);
  if (shortfall.length === 0) return [];
  const types = await typesOf(snapshot);
  const created: string[] = [];
  const now = deps.clock.now();
  for (const { buffer, pods } of shortfall) {
    // Fresh claims only: a standby chunk never shares a node with running pods.
    const plan = await planner.solve({ ...planner.schedulingInputFromSnapshot(snapshot, types), pods, existingNodes: [] });
    for (const [i, planned] of plan.nodeClaims.entries()) {
      const pool = snapshot.nodePools.find((p) => p.name === planned.nodePool);
      const claim: NodeClaim = planner.plannedClaimToNodeClaim(
        planned,
        nodeClaimName(
          planned.nodePool,
          planned.pods.map((p) => p.uid),
          now,
          i,
        ),
        now,
        pool,
      );
      claim.annotations[Annotation.standby] = `${buffer.buffer.namespace}/${buffer.buffer.name}`;
      claim.annotations[Annotation.standbyChunks] = String(planned.pods.length);
      claim.spec.taints = [...claim.spec.taints, { key: TaintKey.standby, value: 'true', effect: 'NoSchedule' }];
      try {
        const made = await deps.cluster.createNodeClaim(claim);
        await deps.workflows.start('launch', made.name, { nodeClaimName: made.name });
        created.push(made.name);
        deps.log.info('created standby nodeclaim', {
          nodeclaim: made.name,
          capacitybuffer: claim.annotations[Annotation.standby],
          chunks: planned.pods.length,
        });
      } catch (e) {
        deps.log.warn('could not create standby nodeclaim; the next round tries again', { nodeclaim: claim.name, error: errorText(e) });
      }
    }
  }
  return created;
}

/** An invocation's standby work before its rounds; true when it changed the cluster (the caller reads it again). */
export async function reconcileStandby(
  deps: LifecycleDeps,
  planner: Planner,
  snapshot: ClusterSnapshot,
  typesOf: (s: ClusterSnapshot) => Promise<Record<string, InstanceType[]>>,
): Promise<{ changed: boolean; created: string[] }> {
  const settled = await settle(deps, snapshot);
  const created = await launchShortfall(deps, planner, snapshot, typesOf);
  return { changed: settled || created.length > 0, created };
}

/** Starts the stopped standby nodes a round's plan placed pending pods on: their taint goes, the pods follow once Ready. */
export async function wakeStandby(deps: LifecycleDeps, snapshot: ClusterSnapshot, plan: Plan): Promise<string[]> {
  const woken: string[] = [];
  for (const c of standbyToWake(snapshot, plan)) {
    try {
      await deps.cluster.patchNodeClaimMetadata(c.name, { annotations: { [Annotation.standbyState]: 'starting' } });
      await deps.cloud.start(c.status.providerID!).catch(async (e: unknown) => {
        await deps.cluster.patchNodeClaimMetadata(c.name, { annotations: { [Annotation.standbyState]: 'stopped' } });
        throw e;
      });
      const node = snapshot.nodes.find((n) => n.name === c.status.nodeName);
      if (node) await deps.cluster.patchNode(node.name, { taints: node.taints.filter((t) => t.key !== TaintKey.standby) });
      deps.log.info('started standby node for pending pods', { nodeclaim: c.name, node: c.status.nodeName });
      woken.push(c.name);
    } catch (e) {
      deps.log.warn('could not start standby node; the next round plans its pods again', { nodeclaim: c.name, error: errorText(e) });
    }
  }
  return woken;
}
