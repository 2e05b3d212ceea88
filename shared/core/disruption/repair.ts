/**
 * Node repair (Karpenter's node.health controller, and v1.15's repair as a budgeted disruption): a node whose condition
 * has been unhealthy past its policy's toleration (shared/core/model/repair-policies.ts) is repaired — rebooted first
 * when the policy says a reboot can clear it, else replaced (pre-spun, as drift is; terminate-first when no
 * replacement can be planned, e.g. a pool at its limits), its drain bounded by the policy. Never when more than 20 %
 * of the pool's nodes are unhealthy (a zone or AMI problem a replacement would not fix), never past the pool's
 * budgets (those without `reasons`; the unhealthy NotReady nodes themselves do not use the budget up).
 */
import { Annotation, Label } from '../model/labels';
import { conditionIsTrue } from '../model/karpenter';
import { repairPolicyFor, type RepairPolicy } from '../model/repair-policies';
import { addSeconds, type EpochMs } from '../time';
import { allowedDisruptions } from './budgets';
import { isDisrupting, nodeCheck, podCheck, toCandidate, type ClusterView, type NodeView } from './candidates';
import type { Pass } from './pass';
import { simulate } from './simulate';
import type { Command, DisruptionDecision } from './types';
import type { DisruptionReason } from '../model/karpenter';

/** After a reboot, a condition still (or again) unhealthy this long is replaced. */
export const REBOOT_GRACE_SECONDS = 10 * 60;
/** A failure within a day of a repair reboot is replaced, not rebooted again (a fault that keeps coming back). */
const NEW_INCIDENT_SECONDS = 24 * 60 * 60;
/** Karpenter's allowedUnhealthyPercent: more unhealthy nodes than this in a pool blocks repair there. */
const ALLOWED_UNHEALTHY_PERCENT = 20;

interface Due {
  policy: RepairPolicy;
  condition: NonNullable<NodeView['node']['unhealthy']>[number];
  dueAt: EpochMs;
  action: 'reboot' | 'replace';
}

const rebootedAt = (v: NodeView): EpochMs | undefined => {
  const t = Date.parse(v.claim.annotations[Annotation.repairRebootedAt] ?? '');
  return Number.isFinite(t) ? (t as EpochMs) : undefined;
};

/** The node's unhealthy condition that comes due first, with what to do then. */
function dueRepair(v: NodeView): Due | undefined {
  let best: Due | undefined;
  const rebooted = rebootedAt(v);
  for (const condition of v.node.unhealthy ?? []) {
    const policy = repairPolicyFor(condition.type, condition.status);
    if (!policy) continue;
    // Rebooted for this incident: replace once the reboot's grace is over, whatever the condition's new start time.
    const afterReboot = policy.action === 'reboot' && rebooted !== undefined && condition.since <= addSeconds(rebooted, NEW_INCIDENT_SECONDS);
    const due: Due = afterReboot
      ? { policy, condition, dueAt: addSeconds(rebooted!, REBOOT_GRACE_SECONDS), action: 'replace' }
      : { policy, condition, dueAt: addSeconds(condition.since, policy.tolerationSeconds), action: policy.action };
    if (!best || due.dueAt < best.dueAt) best = due;
  }
  return best;
}

const counted = (v: NodeView) =>
  (conditionIsTrue(v.claim, 'Initialized') || v.node.labels[Label.initialized] === 'true') && !conditionIsTrue(v.claim, 'InstanceTerminating');

/** Per pool: its managed nodes, the unhealthy ones, and the unhealthy NotReady ones (counted as disrupting by the budgets). */
function poolHealth(view: ClusterView): Map<string, { nodes: number; unhealthy: number; notReady: number }> {
  const out = new Map<string, { nodes: number; unhealthy: number; notReady: number }>();
  for (const v of view.views) {
    const h = out.get(v.claim.nodePool) ?? { nodes: 0, unhealthy: 0, notReady: 0 };
    h.nodes++;
    if (v.node.unhealthy?.length) {
      h.unhealthy++;
      // Only the NotReady nodes the budgets count as disrupting (initialized, not terminating, not disrupted yet).
      if (!v.node.ready && !isDisrupting(v) && counted(v)) h.notReady++;
    }
    out.set(v.claim.nodePool, h);
  }
  return out;
}

/** What to do for a node due for repair (a command), or why not (a string). */
function repairCommand(view: ClusterView, v: NodeView, due: Due): Command | string {
  const c = toCandidate(view, v, true);
  if (typeof c === 'string') return c;
  const repair = { condition: due.condition.type, status: due.condition.status, since: due.condition.since, drainSeconds: due.policy.drainSeconds };
  const base = { method: 'repair' as const, reason: 'unhealthy' as const, candidates: [c], repair };
  // A reboot restarts every pod at once: with a pod a PDB or do-not-disrupt protects, replace (a bounded drain) instead.
  if (due.action === 'reboot' && !podCheck(view, v, false)) return { ...base, action: 'reboot', replacements: [], savingsPerHour: 0 };
  if (c.pods.length === 0) return { ...base, action: 'delete', replacements: [], savingsPerHour: c.price };
  const sim = simulate(view, [c]);
  // No replacement can be planned (a pool at its limits, no capacity): terminate first, the pods are provisioned after.
  if (sim.failure) return { ...base, action: 'delete', replacements: [], savingsPerHour: c.price };
  return {
    ...base,
    action: sim.newClaims.length ? 'replace' : 'delete',
    replacements: sim.newClaims,
    savingsPerHour: c.price - sim.newClaims.reduce((s, x) => s + x.price, 0),
  };
}

/** This pass's repairs: the commands (one per node) and the nodes due that may not be repaired now. */
export function repairs(view: ClusterView, pass: Pass): Pick<DisruptionDecision, 'repairs' | 'repairBlocked'> {
  const out: Pick<DisruptionDecision, 'repairs' | 'repairBlocked'> = { repairs: [], repairBlocked: [] };
  const health = poolHealth(view);
  const left = new Map<string, number>();
  const who = (v: NodeView) => [{ nodeClaim: v.claim, node: v.node }];
  for (const v of view.views) {
    if (!v.node.unhealthy?.length || isDisrupting(v)) continue;
    const due = dueRepair(v);
    if (!due) continue;
    const what = `${due.condition.type}=${due.condition.status} since ${new Date(due.condition.since).toISOString()}`;
    if (view.input.now < due.dueAt) {
      pass.record('skipped', 'repair', who(v), `${what}: ${due.action} at ${new Date(due.dueAt).toISOString()}`);
      continue;
    }
    const blocked = (why: string) => {
      pass.record('rejected', 'repair', who(v), `${what}: ${why}`);
      out.repairBlocked.push({ node: v.node.name, nodeClaim: v.claim.name, nodePool: v.claim.nodePool, why });
    };
    const check = nodeCheck(view, v);
    if (check) {
      blocked(check);
      continue;
    }
    const h = health.get(v.claim.nodePool)!;
    const threshold = Math.ceil((h.nodes * ALLOWED_UNHEALTHY_PERCENT) / 100);
    if (h.unhealthy > threshold) {
      blocked(`more than ${ALLOWED_UNHEALTHY_PERCENT}% nodes are unhealthy in the nodepool (${h.unhealthy} of ${h.nodes})`);
      continue;
    }
    if (!left.has(v.claim.nodePool)) {
      const counts = view.counts.get(v.claim.nodePool) ?? { total: 0, disrupting: 0 };
      const allowed = allowedDisruptions(
        v.pool!,
        'Unhealthy' as DisruptionReason,
        { ...counts, disrupting: Math.max(0, counts.disrupting - h.notReady) },
        view.input.now,
      );
      left.set(v.claim.nodePool, allowed.allowed);
    }
    if (left.get(v.claim.nodePool)! <= 0) {
      blocked(`budget: no disruption allowed now in nodepool ${v.claim.nodePool}`);
      continue;
    }
    const cmd = repairCommand(view, v, due);
    if (typeof cmd === 'string') {
      blocked(cmd);
      continue;
    }
    left.set(v.claim.nodePool, left.get(v.claim.nodePool)! - 1);
    pass.choose(cmd, `${what}: ${cmd.action === 'reboot' ? 'reboot' : cmd.action === 'replace' ? 'replace (pre-spun)' : 'delete (terminate first)'}`);
    out.repairs.push(cmd);
  }
  return out;
}
