/**
 * The disrupt workflow's steps (reference §4.6): taint candidates, pre-spin replacements, wait until they are
 * initialized, then one `terminate` execution per candidate; on failure, untaint and roll replacements back.
 */
import { DeadlineExceededError, ExecutionInputInvalidError, NodeClaimNotFoundError } from '../errors';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import { Label, TaintKey } from '../model/labels';
import { condition } from './claims';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import type { DisruptInput } from './manual-input';
import { executionName, stableSuffix } from './names';

export interface DisruptionState extends DisruptInput {
  disruptionId: string;
  /** Replacements must be initialized before this (ms since epoch); for an interruption, the drain starts then. */
  deadlineMs: number;
  /** WaitForReplacements' interval: 10 s, 5 s when an interruption's notice is running. */
  pollSeconds: number;
}

/** Polling while replacements launch: an interrupted node has only its notice left. */
const POLL_SECONDS = 10;
const INTERRUPTION_POLL_SECONDS = 5;

/** Checks the candidates exist (read-only) and fixes the id and deadline of this disruption. */
export async function prepareDisruption(deps: LifecycleDeps, input: DisruptInput): Promise<DisruptionState> {
  for (const c of input.candidates) {
    if (!(await deps.cluster.getNodeClaim(c.nodeClaimName))) {
      throw new ExecutionInputInvalidError(`disrupt execution input candidates: nodeclaim "${c.nodeClaimName}" does not exist`);
    }
  }
  const seed = [...input.candidates.map((c) => c.nodeClaimName), '|', ...input.replacements.map((r) => r.name)].join(',');
  if (input.interruption) return { ...input, disruptionId: stableSuffix(seed, 8), deadlineMs: input.interruption.drainBy, pollSeconds: INTERRUPTION_POLL_SECONDS };
  return { ...input, disruptionId: stableSuffix(seed, 8), deadlineMs: deps.clock.now() + LifecycleTimings.replacementReadyTimeoutMs, pollSeconds: POLL_SECONDS };
}

async function candidateNode(deps: LifecycleDeps, c: { nodeClaimName: string; nodeName?: string }): Promise<string | undefined> {
  return c.nodeName ?? (await deps.cluster.getNodeClaim(c.nodeClaimName))?.status.nodeName;
}

export async function taintCandidates(deps: LifecycleDeps, state: DisruptionState): Promise<DisruptionState> {
  for (const c of state.candidates) {
    const nodeName = await candidateNode(deps, c);
    const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
    if (node && !node.taints.some((t) => t.key === TaintKey.disrupted)) {
      await deps.cluster.patchNode(node.name, { taints: [...node.taints, { key: TaintKey.disrupted, effect: 'NoSchedule' }] });
      deps.log.info('tainted node', { node: node.name, nodeclaim: c.nodeClaimName, taint: `${TaintKey.disrupted}:NoSchedule`, reason: state.reason });
    }
    await deps.cluster.patchNodeClaimStatus(c.nodeClaimName, { conditions: [condition('DisruptionReason', 'True', deps.clock.now(), state.reason)] });
  }
  return state;
}

/** Creates one replacement claim and starts its `launch` execution (named after the claim). */
export async function launchReplacement(deps: LifecycleDeps, input: { nodeClaim: NodeClaim; disruptionId: string }): Promise<{ nodeClaimName: string }> {
  const claim = await deps.cluster.createNodeClaim(input.nodeClaim);
  deps.log.info('created nodeclaim', {
    nodeclaim: claim.name, nodepool: claim.nodePool, disruption: input.disruptionId,
    'instance-types': (claim.spec.requirements.find((r) => r.key === Label.instanceType)?.values ?? []).slice(0, 5).join(', '),
  });
  await deps.workflows.start('launch', claim.name, { nodeClaimName: claim.name });
  return { nodeClaimName: claim.name };
}

/**
 * Are the replacements initialized? A gone replacement (failed launch) or the deadline fails a disruption
 * (rollback); an interruption drains anyway — its node is going — and the provisioner plans the pods left.
 */
export async function checkReplacementsReady(deps: LifecycleDeps, state: DisruptionState): Promise<DisruptionState & { ready: boolean }> {
  const waiting: string[] = [];
  const gone: string[] = [];
  for (const r of state.replacements) {
    const claim = await deps.cluster.getNodeClaim(r.name);
    if (!claim) gone.push(r.name);
    else if (!conditionIsTrue(claim, 'Initialized')) waiting.push(r.name);
  }
  const late = waiting.length > 0 && deps.clock.now() >= state.deadlineMs;
  if (state.interruption) {
    if (gone.length || late) {
      deps.log.warn('draining interrupted node before its replacements are ready', {
        nodeclaim: state.candidates.map((c) => c.nodeClaimName).join(', '), reason: state.reason,
        ...(gone.length ? { failed: gone.join(', ') } : {}), ...(late ? { waiting: waiting.join(', ') } : {}),
      });
      return { ...state, ready: true };
    }
    return { ...state, ready: waiting.length === 0 };
  }
  if (gone.length) throw new NodeClaimNotFoundError(`replacement nodeclaim "${gone[0]}" is gone (its launch failed)`);
  if (late) throw new DeadlineExceededError(`replacement nodeclaim(s) ${waiting.join(', ')} not initialized before the deadline`);
  return { ...state, ready: waiting.length === 0 };
}

/** One `terminate` execution per candidate, named `<nodeclaim>-<disruptionId>` so a retry starts nothing twice. */
export async function startTerminations(deps: LifecycleDeps, state: DisruptionState): Promise<DisruptionState & { terminations: string[] }> {
  const terminations: string[] = [];
  for (const c of state.candidates) {
    const name = executionName(c.nodeClaimName, state.disruptionId);
    await deps.workflows.start('terminate', name, { nodeClaimName: c.nodeClaimName, reason: state.reason });
    terminations.push(name);
  }
  await deps.store.audit({
    at: deps.clock.now(), kind: 'disruption', action: 'disrupting', reason: state.reason,
    nodeClaims: state.candidates.map((c) => c.nodeClaimName), detail: { replacements: state.replacements.map((r) => r.name), disruptionId: state.disruptionId },
  });
  return { ...state, terminations };
}

/** Rollback: remove the disrupted taint from the candidates and terminate any replacement that was created. */
export async function untaintCandidates(deps: LifecycleDeps, state: DisruptionState, failure?: string): Promise<{ disruptionId: string; untainted: string[]; rolledBack: string[] }> {
  const untainted: string[] = [];
  for (const c of state.candidates) {
    const nodeName = await candidateNode(deps, c);
    const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
    if (node && node.taints.some((t) => t.key === TaintKey.disrupted)) {
      await deps.cluster.patchNode(node.name, { taints: node.taints.filter((t) => t.key !== TaintKey.disrupted) });
      untainted.push(node.name);
      deps.log.info('untainted node', { node: node.name, nodeclaim: c.nodeClaimName, reason: failure });
    }
    if (await deps.cluster.getNodeClaim(c.nodeClaimName)) {
      await deps.cluster.patchNodeClaimStatus(c.nodeClaimName, { conditions: [condition('DisruptionReason', 'False', deps.clock.now(), 'Rollback')] });
    }
  }
  const rolledBack: string[] = [];
  for (const r of state.replacements) {
    if (await deps.cluster.getNodeClaim(r.name)) {
      await deps.workflows.start('terminate', executionName(r.name, 'rollback', state.disruptionId), { nodeClaimName: r.name, reason: 'DisruptionRollback' });
      rolledBack.push(r.name);
    }
  }
  await deps.store.audit({
    at: deps.clock.now(), kind: 'disruption', action: 'rolled-back', reason: failure ?? state.reason,
    nodeClaims: state.candidates.map((c) => c.nodeClaimName), detail: { replacements: rolledBack, disruptionId: state.disruptionId },
  });
  return { disruptionId: state.disruptionId, untainted, rolledBack };
}
