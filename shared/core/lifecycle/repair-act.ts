/**
 * Acting on node repair (shared/core/disruption/repair.ts decides): a reboot is one EC2 call and an annotation on the
 * claim (a second failure soon after is replaced, not rebooted again); a replacement or delete is a `disrupt`
 * execution, as drift's, with the drain bounded by the policy: the claim's termination timestamp is set to now plus
 * the smaller of its terminationGracePeriod and the policy's bound before the execution starts (its drain reads it),
 * and cleared again if the execution does not start.
 */
import { isNodeClaimNotFoundError } from '../errors';
import { Annotation } from '../model/labels';
import { rebootEvents, repairBlockedEvents, disruptingEvents, type Command, type DisruptionDecision, type ReplacementContext } from '../disruption';
import { recordDisruptionCommand } from '../metrics/record';
import type { AuditRecord } from '../ports';
import { addSeconds, type EpochMs } from '../time';
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
  try {
    await deps.cloud.reboot(providerID);
  } catch (e) {
    if (isNodeClaimNotFoundError(e)) return; // gone or not running: garbage collection and the next pass see to it
    throw e;
  }
  await deps.cluster.patchNodeClaimMetadata(c.nodeClaim.name, { annotations: { [Annotation.repairRebootedAt]: new Date(deps.clock.now()).toISOString() } });
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

/** The drain deadline a repair sets: now + min(the claim's terminationGracePeriod, the policy's bound), unless one is set already. */
function drainDeadline(cmd: Command, now: EpochMs): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of cmd.candidates) {
    if (c.nodeClaim.annotations[Annotation.terminationTimestamp]) continue;
    const tgp = c.nodeClaim.spec.terminationGracePeriod;
    const bound = Math.min(tgp ?? Infinity, cmd.repair?.drainSeconds ?? Infinity);
    if (Number.isFinite(bound)) out[c.nodeClaim.name] = new Date(addSeconds(now, bound)).toISOString();
  }
  return out;
}

async function replace(deps: LifecycleDeps, cmd: Command, namingTimeMs: EpochMs, context: ReplacementContext, out: RepairOutcome): Promise<void> {
  const deadlines = drainDeadline(cmd, deps.clock.now());
  const annotate = (value: (v: string) => string | null) =>
    Promise.all(
      Object.entries(deadlines).map(([name, v]) => deps.cluster.patchNodeClaimMetadata(name, { annotations: { [Annotation.terminationTimestamp]: value(v) } })),
    );
  await annotate((v) => v);
  let started;
  try {
    started = await startCommand(deps, cmd, namingTimeMs, context);
  } catch (e) {
    await annotate(() => null);
    throw e;
  }
  if (started.started.length === 0) await annotate(() => null);
  else {
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
    if (cmd.action === 'reboot') await reboot(deps, cmd, out);
    else await replace(deps, cmd, namingTimeMs, context, out);
  }
  return out;
}
