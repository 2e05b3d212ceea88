/**
 * From a command to what the disruption function starts, and Karpenter's log line. Budgeted commands
 * become one `disrupt` execution (taint → pre-spin → wait → terminate); expirations become `terminate`
 * executions (forceful, no pre-spin), as in Karpenter v1.
 */
import { NodeClassHashVersion, nodeClassHash } from '../model/hash';
import type { EC2NodeClass, NodeClaim, NodePool } from '../model/karpenter';
import { Annotation } from '../model/labels';
import { prettySlice } from '../model/pretty';
import { disruptionIdOf, nameReplacements } from '../lifecycle/disruption';
import { executionName, nodeClaimName, stableSuffix } from '../lifecycle/names';
import { plannedClaimToNodeClaim } from '../provisioning/from-snapshot';
import type { WorkflowName } from '../ports/workflow-starter';
import type { Command } from './types';
import type { EpochMs } from '../time';

type DisruptExecutionReason = 'Underutilized' | 'Empty' | 'Drifted' | 'Expired' | 'Unhealthy';
const ReasonOf: Record<Command['reason'], DisruptExecutionReason> = {
  underutilized: 'Underutilized',
  empty: 'Empty',
  drifted: 'Drifted',
  expired: 'Expired',
  unhealthy: 'Unhealthy',
};

interface DisruptExecutionInput {
  reason: DisruptExecutionReason;
  /** Node repair: the drain's bound (shared/core/model/repair-policies.ts). */
  drainSeconds?: number;
  candidates: { nodeClaimName: string; nodeName?: string }[];
  replacements: NodeClaim[];
}

export interface ExecutionRequest {
  machine: WorkflowName;
  name: string;
  input: unknown;
}

/** Pools and classes to stamp the drift hashes on replacements (a replacement may land in another pool). */
export interface ReplacementContext {
  nodePools?: NodePool[];
  nodeClasses?: EC2NodeClass[];
}

/**
 * The replacement NodeClaim objects, named deterministically from the command and `nowMs`, annotated with
 * the nodepool hash and, when the class is known, the ec2nodeclass hash (so drift can be detected later).
 */
export function replacementClaims(cmd: Command, nowMs: EpochMs, context: ReplacementContext = {}): NodeClaim[] {
  return cmd.replacements.map((r, i) => {
    const pool = context.nodePools?.find((p) => p.name === r.nodePool) ?? cmd.candidates.find((c) => c.nodePool.name === r.nodePool)?.nodePool;
    const name = nodeClaimName(r.nodePool, [...cmd.candidates.map((c) => c.nodeClaim.name), ...r.pods.map((p) => p.uid)], nowMs, i);
    const claim = plannedClaimToNodeClaim(r, name, nowMs, pool);
    const cls = context.nodeClasses?.find((c) => c.name === r.nodeClassRef.name);
    if (cls) {
      claim.annotations[Annotation.nodeClassHash] = cls.hash ?? nodeClassHash(cls);
      claim.annotations[Annotation.nodeClassHashVersion] = NodeClassHashVersion;
    }
    return claim;
  });
}

/** The executions to start for a command; names are stable for the same command and time (idempotent). */
export function toExecutions(cmd: Command, nowMs: EpochMs, context: ReplacementContext = {}): ExecutionRequest[] {
  if (cmd.method === 'expiration') {
    return cmd.candidates.map((c) => ({
      machine: 'terminate' as const,
      name: executionName(c.nodeClaim.name, 'expired'),
      input: { nodeClaimName: c.nodeClaim.name, reason: 'Expired' },
    }));
  }
  const seed = `${cmd.method}|${cmd.candidates.map((c) => c.nodeClaim.name).join(',')}|${nowMs}`;
  const name = executionName('disrupt', cmd.reason, stableSuffix(seed, 10));
  // Named and marked as ValidateDisruptInput will (it rewrites them anyway), so logs and audit show the real names.
  const input: DisruptExecutionInput = {
    reason: ReasonOf[cmd.reason],
    ...(cmd.repair ? { drainSeconds: cmd.repair.drainSeconds } : {}),
    candidates: cmd.candidates.map((c) => ({ nodeClaimName: c.nodeClaim.name, nodeName: c.node.name })),
    replacements: nameReplacements(replacementClaims(cmd, nowMs, context), disruptionIdOf(name)),
  };
  return [{ machine: 'disrupt', name, input }];
}

/** Karpenter's line: "disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) n/t/ct and replacing with …". */
export function commandLogLine(cmd: Command): string {
  const pods = cmd.candidates.reduce((n, c) => n + c.pods.length, 0);
  const nodes = cmd.candidates.map((c) => `${c.node.name}/${c.instanceType}/${c.capacityType}`).join(', ');
  let line = `disrupting nodeclaim(s) via ${cmd.action}, terminating ${cmd.candidates.length} nodes (${pods} pods) ${nodes}`;
  for (const r of cmd.replacements) {
    line += ` and replacing with ${r.capacityType} node from types ${prettySlice(r.instanceTypes.map((t) => t.name))}`;
  }
  return `${line} (reason ${cmd.reason}${cmd.driftReasons ? `: ${Object.values(cmd.driftReasons).join(', ')}` : ''}, method ${cmd.method}, savings $${cmd.savingsPerHour.toFixed(4)}/h)`;
}
