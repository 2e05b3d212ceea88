/**
 * Acting on a disruption command: Karpenter's log line, a short per-candidate claim in the StateStore (so a
 * second command can never pick a node whose disrupt execution has not tainted it yet), the executions the
 * core's `toExecutions` asks for (deterministic names: a retried invocation starts nothing twice), and the
 * audit records of what was started.
 */
import { prettySlice } from '../model/pretty';
import { disruptingEvents, toExecutions, type Command, type ReplacementContext } from '../disruption';
import { recordDisruptionCommand } from '../metrics/record';
import { recordEvents } from './events';
import type { LifecycleDeps } from './deps';
import type { AuditRecord, WorkflowName } from '../ports';
import type { EpochMs } from '../time';

/** How long a started command keeps its candidates from other commands (until the disrupt machine taints them). */
const CANDIDATE_LEASE_SECONDS = 300;
const candidateLease = (nodeClaimName: string) => `disruption-candidate#${nodeClaimName}`;

export interface StartedExecution {
  machine: WorkflowName;
  name: string;
  alreadyStarted: boolean;
  reason: Command['reason'];
  nodeClaims: string[];
}

/**
 * Karpenter's message: "disrupting nodeclaim(s) via replace, terminating 1 nodes (1 pods)
 * ip-…/c6g.2xlarge/on-demand and replacing with on-demand node from types c6g.large, … and 55 other(s)".
 */
export function disruptingMessage(cmd: Command): string {
  const pods = cmd.candidates.reduce((n, c) => n + c.pods.length, 0);
  const nodes = cmd.candidates.map((c) => `${c.node.name}/${c.instanceType}/${c.capacityType}`).join(', ');
  let line = `disrupting nodeclaim(s) via ${cmd.action}, terminating ${cmd.candidates.length} nodes (${pods} pods) ${nodes}`;
  for (const r of cmd.replacements) {
    line += ` and replacing with ${r.capacityType} node from types ${prettySlice(r.instanceTypes.map((t) => t.name))}`;
  }
  return line;
}

function commandFields(cmd: Command, commandId: string): Record<string, unknown> {
  return {
    reason: cmd.reason,
    'command-id': commandId,
    nodeclaim: cmd.candidates.map((c) => c.nodeClaim.name).join(', '),
    nodepool: [...new Set(cmd.candidates.map((c) => c.nodePool.name))].join(', '),
    method: cmd.method,
    savingsPerHour: Number(cmd.savingsPerHour.toFixed(6)),
    ...(cmd.driftReasons ? { drift: Object.values(cmd.driftReasons).join(', ') } : {}),
  };
}

function startedRecord(deps: LifecycleDeps, cmd: Command, started: StartedExecution, why: string): AuditRecord {
  return {
    at: deps.clock.now(),
    kind: 'disruption',
    action: started.alreadyStarted ? 'already-started' : 'started',
    reason: cmd.reason,
    nodeClaims: cmd.candidates.map((c) => c.nodeClaim.name),
    nodes: cmd.candidates.map((c) => c.node.name),
    savingsPerHour: cmd.savingsPerHour,
    detail: { method: cmd.method, why, machine: started.machine, execution: started.name, action: cmd.action },
  };
}

/** Claims the candidates for `holder` (the execution name); on a conflict releases what it took and names the holder's rival. */
async function claimCandidates(deps: LifecycleDeps, cmd: Command, holder: string): Promise<string | undefined> {
  const taken: string[] = [];
  for (const c of cmd.candidates) {
    if (await deps.store.acquireLease(candidateLease(c.nodeClaim.name), holder, CANDIDATE_LEASE_SECONDS)) {
      taken.push(c.nodeClaim.name);
      continue;
    }
    for (const name of taken) await deps.store.releaseLease(candidateLease(name), holder);
    return `nodeclaim ${c.nodeClaim.name} is already part of another disruption command started in the last ${CANDIDATE_LEASE_SECONDS}s`;
  }
  return undefined;
}

export interface ActOutcome {
  started: StartedExecution[];
  audit: AuditRecord[];
  /** Set when the command was not started (its candidates belong to another command). */
  skipped?: string;
}

/**
 * Starts the executions of one command, logging Karpenter's line once per newly started command. `context`
 * (the snapshot's pools and classes) stamps the drift hashes on replacement claims.
 */
export async function startCommand(deps: LifecycleDeps, cmd: Command, namingTimeMs: EpochMs, context: ReplacementContext = {}): Promise<ActOutcome> {
  const requests = toExecutions(cmd, namingTimeMs, context);
  const outcome: ActOutcome = { started: [], audit: [] };
  const message = disruptingMessage(cmd);
  for (const req of requests) {
    const nodeClaims =
      cmd.method === 'expiration' ? [String((req.input as { nodeClaimName: string }).nodeClaimName)] : cmd.candidates.map((c) => c.nodeClaim.name);
    if (req.machine === 'disrupt') {
      const conflict = await claimCandidates(deps, cmd, req.name);
      if (conflict) {
        deps.log.info('skipping disruption command', { ...commandFields(cmd, req.name), why: conflict });
        outcome.skipped = conflict;
        outcome.audit.push({
          at: deps.clock.now(),
          kind: 'disruption',
          action: 'abandoned',
          reason: cmd.reason,
          nodeClaims,
          nodes: cmd.candidates.map((c) => c.node.name),
          detail: { method: cmd.method, why: conflict, execution: req.name },
        });
        continue;
      }
    }
    let alreadyStarted: boolean;
    try {
      ({ alreadyStarted } = await deps.workflows.start(req.machine, req.name, req.input));
    } catch (e) {
      // Nothing started: the candidates are free again for the next pass.
      if (req.machine === 'disrupt') for (const c of cmd.candidates) await deps.store.releaseLease(candidateLease(c.nodeClaim.name), req.name);
      throw e;
    }
    const started: StartedExecution = { machine: req.machine, name: req.name, alreadyStarted, reason: cmd.reason, nodeClaims };
    outcome.started.push(started);
    if (alreadyStarted) {
      deps.log.info('disruption command already started (retried invocation)', { ...commandFields(cmd, req.name), execution: req.name, machine: req.machine });
    } else {
      deps.log.info(message, { ...commandFields(cmd, req.name), execution: req.name, machine: req.machine });
    }
    outcome.audit.push(startedRecord(deps, cmd, started, message));
  }
  return outcome;
}

/** Where a pass keeps what it started: executions, abandoned commands, audit records, commands started. */
export interface PassSink {
  executions: StartedExecution[];
  abandoned: { method: Command['method']; nodeClaims: string[]; why: string }[];
  audit: AuditRecord[];
  started: Command[];
}

/** Starts the pass's budgeted command, with its events and metrics; true when it started (or belongs to a running execution). */
export async function startPassCommand(
  deps: LifecycleDeps,
  cmd: Command,
  namingTimeMs: EpochMs,
  context: ReplacementContext,
  sink: PassSink,
): Promise<boolean> {
  const out = await startCommand(deps, cmd, namingTimeMs, context);
  if (out.started.length > 0) {
    await recordEvents(deps, disruptingEvents(cmd));
    recordDisruptionCommand(deps.metrics, cmd);
    sink.started.push(cmd);
  }
  sink.executions.push(...out.started);
  if (out.skipped) sink.abandoned.push({ method: cmd.method, nodeClaims: cmd.candidates.map((c) => c.nodeClaim.name), why: out.skipped });
  sink.audit.push(...out.audit);
  // A command whose candidates belong to a running execution comes back every pass until they are tainted: the pass
  // stops here rather than recompute it.
  return out.started.length > 0 || out.skipped !== undefined;
}
