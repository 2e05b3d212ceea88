/**
 * Acting on node repair (shared/core/disruption/repair.ts decides): a reboot is one EC2 call and an annotation on the
 * claim (a second failure soon after is replaced, not rebooted again); a replacement or delete is a `disrupt`
 * execution, as drift's, whose input carries the policy's drain bound (drainSeconds): the terminate workflow sets the
 * claim's termination timestamp to the smaller of its terminationGracePeriod and that bound when the drain starts.
 */
import { isNodeClaimNotFoundError } from '../errors';
import { Annotation } from '../model/labels';
import { rebootEvents, repairBlockedEvents, disruptingEvents, type Command, type DisruptionDecision, type ReplacementContext } from '../disruption';
import { recordDisruptionCommand } from '../metrics/record';
import type { AuditRecord } from '../ports';
import type { EpochMs } from '../time';
import type { LifecycleDeps } from './deps';
import { startCommand, type StartedExecution } from './disruption-act';
import { recordEvents } from './events';

export interface RepairOutcome {
  started: StartedExecution[];
  rebooted: string[];
  audit: AuditRecord[];
}

async function reboot(deps: LifecycleDeps, cmd: Command, out: RepairOutcome): Promise<void> {
  const c = cmd.candidates[0];
  const providerID = c.nodeClaim.status.providerID;
  if (!providerID) return;
  // Marked first: a reboot whose mark could not be written would be rebooted again at every pass.
  const mark = (value: string | null) => deps.cluster.patchNodeClaimMetadata(c.nodeClaim.name, { annotations: { [Annotation.repairRebootedAt]: value } });
  const before = c.nodeClaim.annotations[Annotation.repairRebootedAt] ?? null;
  await mark(new Date(deps.clock.now()).toISOString());
  try {
    await deps.cloud.reboot(providerID);
  } catch (e) {
    await mark(before);
    if (isNodeClaimNotFoundError(e)) return; // gone or not running: garbage collection and the next pass see to it
    throw e;
  }
  deps.log.info('rebooting unhealthy node', { node: c.node.name, nodeclaim: c.nodeClaim.name, condition: `${cmd.repair?.condition}=${cmd.repair?.status}` });
  await recordEvents(deps, rebootEvents(cmd));
  recordDisruptionCommand(deps.metrics, cmd);
  out.rebooted.push(c.nodeClaim.name);
  out.audit.push({
    at: deps.clock.now(),
    kind: 'disruption',
    action: 'started',
    reason: 'unhealthy',
    nodeClaims: [c.nodeClaim.name],
    nodes: [c.node.name],
    detail: { method: 'repair', action: 'reboot', why: `${cmd.repair?.condition}=${cmd.repair?.status}` },
  });
}

/** A replacement or delete: a `disrupt` execution; its drain is bounded by the policy from the drain's start (drainSeconds). */
async function replace(deps: LifecycleDeps, cmd: Command, namingTimeMs: EpochMs, context: ReplacementContext, out: RepairOutcome): Promise<void> {
  const started = await startCommand(deps, cmd, namingTimeMs, context);
  if (started.started.length > 0) {
    await recordEvents(deps, disruptingEvents(cmd));
    recordDisruptionCommand(deps.metrics, cmd);
  }
  out.started.push(...started.started);
  out.audit.push(...started.audit);
}

/** Reboots and replacements of this pass's repairs, and NodeRepairBlocked events for the ones that must wait. */
export async function actOnRepairs(
  deps: LifecycleDeps,
  decision: Pick<DisruptionDecision, 'repairs' | 'repairBlocked'>,
  namingTimeMs: EpochMs,
  context: ReplacementContext,
): Promise<RepairOutcome> {
  const out: RepairOutcome = { started: [], rebooted: [], audit: [] };
  await recordEvents(deps, repairBlockedEvents(decision.repairBlocked));
  for (const cmd of decision.repairs) {
    // One repair that fails (EC2 refuses a reboot, a start fails) leaves the others and the pass's other work alone.
    try {
      if (cmd.action === 'reboot') await reboot(deps, cmd, out);
      else await replace(deps, cmd, namingTimeMs, context, out);
    } catch (e) {
      const why = `repair failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
      const c = cmd.candidates[0];
      deps.log.warn('could not repair node', { node: c.node.name, nodeclaim: c.nodeClaim.name, action: cmd.action, error: why });
      await recordEvents(deps, repairBlockedEvents([{ node: c.node.name, nodeClaim: c.nodeClaim.name, nodePool: c.nodePool.name, why }])).catch(
        () => undefined,
      );
    }
  }
  return out;
}
