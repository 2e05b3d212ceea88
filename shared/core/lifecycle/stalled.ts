/**
 * Claims whose launch never happened: the provisioner (or a disruption) created the NodeClaim, then died
 * before its `launch` execution started, or the execution failed before CreateFleet answered. Without this,
 * such a claim holds its pods (they look planned) until garbage collection's 15-minute registration deadline.
 * Each provisioner round: a claim not Launched after 30 s gets its `launch` execution (named after the claim,
 * so an existing one is not started twice); one still not Launched after 2 minutes is deleted, so its pods are
 * planned again at once — an instance CreateFleet did start for it is then an orphan that garbage collection
 * reclaims (ownership by providerID).
 */
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import type { ClusterSnapshot } from '../ports';
import type { LifecycleDeps } from './deps';
import type { EpochMs } from '../time';

const STALLED_RELAUNCH_AFTER_MS = 30_000;
const STALLED_DELETE_AFTER_MS = 120_000;

export type StalledAction = { type: 'relaunch' | 'delete'; nodeClaim: string; ageSeconds: number };

/** What to do about claims that were never launched. Pure. */
function decideStalledClaims(claims: readonly NodeClaim[], nowMs: EpochMs): StalledAction[] {
  const out: StalledAction[] = [];
  for (const c of claims) {
    if (c.deletionTimestamp !== undefined || c.status.providerID || conditionIsTrue(c, 'Launched')) continue;
    if (c.status.conditions.some((x) => x.type === 'Launched' && x.status === 'False')) continue; // a launch answered (e.g. no capacity): its own workflow cleans up
    const ageMs = nowMs - c.creationTimestamp;
    if (ageMs >= STALLED_DELETE_AFTER_MS) out.push({ type: 'delete', nodeClaim: c.name, ageSeconds: Math.round(ageMs / 1000) });
    else if (ageMs >= STALLED_RELAUNCH_AFTER_MS) out.push({ type: 'relaunch', nodeClaim: c.name, ageSeconds: Math.round(ageMs / 1000) });
  }
  return out;
}

export async function reconcileStalledClaims(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'workflows'>,
  snapshot: Pick<ClusterSnapshot, 'nodeClaims'>,
): Promise<StalledAction[]> {
  const actions = decideStalledClaims(snapshot.nodeClaims, deps.clock.now());
  for (const a of actions) {
    if (a.type === 'relaunch') {
      const { alreadyStarted } = await deps.workflows.start('launch', a.nodeClaim, { nodeClaimName: a.nodeClaim });
      if (!alreadyStarted) deps.log.warn('started the launch of a nodeclaim that was never launched', { nodeclaim: a.nodeClaim, age: a.ageSeconds });
    } else {
      await deps.cluster.deleteNodeClaim(a.nodeClaim);
      deps.log.warn('deleted a nodeclaim that was never launched; its pods are planned again', { nodeclaim: a.nodeClaim, age: a.ageSeconds });
    }
  }
  return actions;
}
