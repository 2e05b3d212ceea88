/**
 * Kubernetes Events of a disruption pass, as Karpenter's disruption controller words them
 * (pkg/controllers/disruption/events): `DisruptionBlocked` on a Node and its NodeClaim that a PodDisruptionBudget or
 * a do-not-disrupt annotation keeps from being disrupted, `Unconsolidatable` when single-node consolidation finds
 * no cheaper way for a node (deduplicated for 15 minutes, as Karpenter), and `DisruptionTerminating` ("Disrupting
 * Node: Underutilized") when a command starts, and `DisruptionBlocked` on a NodePool whose budget allows none.
 */
import type { KubeEvent } from '../ports';
import { describeScore } from './balanced';
import type { Command, DisruptionAuditRecord, DisruptionDecision } from './types';

type DisruptionDecisionRepairBlocked = DisruptionDecision['repairBlocked'];

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const sentence = (s: string) => title(s.trim());

function onBoth(node: string | undefined, claim: string | undefined, make: (kind: 'Node' | 'NodeClaim') => Omit<KubeEvent, 'object'>): KubeEvent[] {
  return [
    ...(node ? [{ object: { kind: 'Node' as const, name: node }, ...make('Node') }] : []),
    ...(claim ? [{ object: { kind: 'NodeClaim' as const, name: claim }, ...make('NodeClaim') }] : []),
  ];
}

/**
 * DisruptionBlocked for the nodes a pass left alone because of a PDB or a do-not-disrupt annotation: once per node
 * (and claim) per dedupe window whatever the wording, as Karpenter dedupes it by the object's UID.
 */
export function blockedEvents(audit: readonly DisruptionAuditRecord[]): KubeEvent[] {
  const out: KubeEvent[] = [];
  const seen = new Set<string>();
  for (const r of audit) {
    if (r.action !== 'skipped' && r.action !== 'rejected') continue;
    const blocker = r.detail.blocker as string | undefined;
    if (!blocker && !/do-not-disrupt/.test(r.detail.why)) continue;
    (r.nodeClaims ?? []).forEach((claim, i) => {
      const node = r.nodes?.[i];
      if (seen.has(claim)) return;
      seen.add(claim);
      out.push(...onBoth(node, claim, () => ({ type: 'Normal', reason: 'DisruptionBlocked', message: sentence(r.detail.why), dedupeByObject: true })));
    });
  }
  return out;
}

/**
 * DisruptionBlocked on a NodePool whose budget allows no disruption for a reason now, in Karpenter's words;
 * deduplicated for a minute (a budget can change every minute).
 */
const uidOf = (pools: readonly { name: string; uid?: string }[], name: string): { uid?: string } => {
  const uid = pools.find((p) => p.name === name)?.uid;
  return uid ? { uid } : {};
};

export function budgetBlockedEvents(
  blocked: readonly { nodePool: string; reason: string }[],
  pools: readonly { name: string; uid?: string }[] = [],
): KubeEvent[] {
  return blocked.map(({ nodePool, reason }) => ({
    // With the pool's uid, so `kubectl describe nodepool` finds it (it selects events by involvedObject.uid).
    object: { kind: 'NodePool' as const, name: nodePool, ...uidOf(pools, nodePool) },
    type: 'Normal' as const,
    reason: 'DisruptionBlocked',
    message: `No allowed disruptions for disruption reason ${reason} due to blocking budget`,
    dedupeSeconds: 60,
  }));
}

/** Unconsolidatable for the nodes single-node consolidation evaluated and could not improve on. */
export function unconsolidatableEvents(audit: readonly DisruptionAuditRecord[]): KubeEvent[] {
  const out: KubeEvent[] = [];
  for (const r of audit) {
    if (r.action !== 'rejected' || r.detail.method !== 'single-node' || r.detail.considered) continue;
    // Budgets and the search's own limits say nothing about the node.
    if (/^(budget:|not evaluated)/.test(r.detail.why)) continue;
    (r.nodeClaims ?? []).forEach((claim, i) => {
      out.push(...onBoth(r.nodes?.[i], claim, () => ({ type: 'Normal', reason: 'Unconsolidatable', message: sentence(r.detail.why), dedupeSeconds: 900 })));
    });
  }
  return out;
}

/**
 * DisruptionTerminating on each candidate's Node and NodeClaim of a command that started; for a move a Balanced pool
 * scored, ConsolidationApproved with the score, as Karpenter: on the Node and NodeClaim of a one-node move, on the
 * NodePool of a multi-node one.
 */
export function disruptingEvents(cmd: Command): KubeEvent[] {
  const reason = title(cmd.reason);
  const out = cmd.candidates.flatMap((c) =>
    onBoth(c.node.name, c.nodeClaim.name, (kind) => ({
      type: 'Normal',
      reason: 'DisruptionTerminating',
      message: `Disrupting ${kind}: ${reason}`,
    })),
  );
  for (const s of cmd.scores ?? []) {
    const message = describeScore(s);
    if (cmd.candidates.length === 1) {
      const c = cmd.candidates[0];
      out.push(...onBoth(c.node.name, c.nodeClaim.name, () => ({ type: 'Normal', reason: 'ConsolidationApproved', message, dedupeByObject: true })));
    } else {
      const uid = cmd.candidates.find((c) => c.nodePool.name === s.nodePool)?.nodePool.uid;
      out.push({
        object: { kind: 'NodePool', name: s.nodePool, ...(uid ? { uid } : {}) },
        type: 'Normal',
        reason: 'ConsolidationApproved',
        message,
        dedupeByObject: true,
      });
    }
  }
  return out;
}

/**
 * Node repair, as Karpenter's node.health controller words it: `NodeRepairBlocked` (Warning, 15 minutes' dedupe) on a
 * node due for repair that may not be repaired now; nodewright's reboot as `NodeRepairReboot` on the node and claim.
 */
export function repairBlockedEvents(blocked: DisruptionDecisionRepairBlocked): KubeEvent[] {
  return blocked.flatMap((b) =>
    onBoth(b.node, b.nodeClaim, () => ({ type: 'Warning', reason: 'NodeRepairBlocked', message: sentence(b.why), dedupeSeconds: 900, dedupeByObject: true })),
  );
}

export function rebootEvents(cmd: Command): KubeEvent[] {
  const r = cmd.repair;
  return cmd.candidates.flatMap((c) =>
    onBoth(c.node.name, c.nodeClaim.name, () => ({
      type: 'Normal',
      reason: 'NodeRepairReboot',
      message: `Rebooting: ${r?.condition}=${r?.status} since ${r ? new Date(r.since).toISOString() : '?'}; replaced if still unhealthy 10m after`,
    })),
  );
}
