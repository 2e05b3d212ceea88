/**
 * The disrupt workflow's steps (docs/karpenter-reference.md §4.6): taint candidates, pre-spin replacements, wait until they are
 * initialized, then one `terminate` execution per candidate; on failure, untaint and roll replacements back.
 *
 * Whoever starts it (the disruption function, the interruption function, an operator), the input is checked
 * against the cluster before any side effect: candidates must be existing, managed NodeClaims not already
 * being deleted (their node is the claim's own); replacements must fit their NodePool (it exists and is
 * usable, the nodeClassRef is the pool's, every requirement intersects the pool's template requirements and
 * every listed instance type satisfies them). Replacements are named by the disruption itself
 * (`<pool>-<5 chars>` from the disruption id, which derives from the execution name) and annotated with that
 * id: LaunchReplacement never adopts a claim it did not create, and rollback terminates only claims carrying
 * this disruption's annotation.
 */
import { overlaidPoolTypes } from '../instance-types/overlays';
import { DeadlineExceededError, ExecutionInputInvalidError, NodeClaimConflictError, NodeClaimNotFoundError } from '../errors';
import type { InstanceType } from '../instance-types/types';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Annotation, Label, TaintKey } from '../model/labels';
import { condition } from './claims';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import type { DisruptInput } from './manual-input';
import { executionName, stableSuffix } from './names';
import { checkCandidates, checkReplacement, invalidDisruptInput, replacementClaimName, type CandidateView } from './disruption-check';
import { addMs, epochMs, type EpochMs } from '../time';

export interface DisruptionState extends DisruptInput {
  disruptionId: string;
  /** Replacements must be initialized before this; for an interruption, the drain starts then. */
  deadlineMs: EpochMs;
  /** WaitForReplacements' interval: 10 s, 5 s when an interruption's notice is running. */
  pollSeconds: number;
}

/** Polling while replacements launch: an interrupted node has only its notice left. */
const POLL_SECONDS = 10;
const INTERRUPTION_POLL_SECONDS = 5;

/** The id of the disruption run by the `disrupt` execution `name` (stable for its retried steps). */
export function disruptionIdOf(name: string): string {
  return stableSuffix(`disrupt|${name}`, 8);
}

/** Names and marks replacements as `disruptionId`'s (what ValidateDisruptInput does; callers may do it first for their logs). */
export function nameReplacements<T extends { nodePool: string; name: string; annotations: Record<string, string> }>(
  replacements: T[],
  disruptionId: string,
): T[] {
  return replacements.map((r, i) => ({
    ...r,
    name: replacementClaimName(r.nodePool, disruptionId, i),
    annotations: { ...r.annotations, [Annotation.disruptionId]: disruptionId },
  }));
}

/**
 * What checking a `disrupt` input reads, and only that (never the workload): the candidates' NodeClaims by name, the
 * node a candidate names when its claim does not name one yet, and the NodePools and EC2NodeClasses.
 */
async function candidateView(deps: Pick<LifecycleDeps, 'cluster'>, input: DisruptInput): Promise<CandidateView> {
  const [claims, config] = await Promise.all([
    Promise.all(input.candidates.map((c) => deps.cluster.getNodeClaim(c.nodeClaimName))),
    deps.cluster.listObjects(['nodePools', 'nodeClasses', 'nodeOverlays'] as const),
  ]);
  const nodes = await Promise.all(
    input.candidates.map((c, i) => {
      const claim = claims[i];
      return claim && !claim.status.nodeName && claim.status.providerID && c.nodeName ? deps.cluster.getNode(c.nodeName) : undefined;
    }),
  );
  return {
    nodeClaims: claims.filter((c): c is NodeClaim => c !== undefined),
    nodes: nodes.filter((n): n is Node => n !== undefined),
    nodePools: config.nodePools,
    nodeClasses: config.nodeClasses,
    ...(config.nodeOverlays?.length ? { nodeOverlays: config.nodeOverlays } : {}),
  };
}

/**
 * Checks the input against the cluster (read-only) and fixes this disruption's id, replacement names and
 * deadline. `executionName` (the `disrupt` execution's) makes the id unique per execution and stable for its
 * retried steps; without it (a direct call) the id derives from the input.
 */
export async function prepareDisruption(
  deps: Pick<LifecycleDeps, 'clock' | 'cloud' | 'cluster'>,
  input: DisruptInput,
  name?: string,
): Promise<DisruptionState> {
  const snapshot = await candidateView(deps, input);
  const candidates = checkCandidates(snapshot, input.candidates);
  const seed = [...input.candidates.map((c) => c.nodeClaimName), '|', ...input.replacements.map((r) => r.name)].join(',');
  const disruptionId = name ? disruptionIdOf(name) : stableSuffix(seed, 8);
  const typesByPool: Record<string, InstanceType[]> = {};
  for (const poolName of new Set(input.replacements.map((r) => r.nodePool))) {
    const pool = snapshot.nodePools.find((p) => p.name === poolName);
    const nodeClass = pool && snapshot.nodeClasses.find((c) => c.name === pool.template.nodeClassRef.name);
    if (pool && !nodeClass)
      throw invalidDisruptInput('replacements', `nodepool "${poolName}"'s ec2nodeclass "${pool.template.nodeClassRef.name}" does not exist`);
    if (pool && nodeClass) typesByPool[poolName] = overlaidPoolTypes(snapshot.nodeOverlays, pool, await deps.cloud.instanceTypes(nodeClass, pool));
  }
  const replacements = input.replacements.map((r, i) =>
    checkReplacement(snapshot, typesByPool, r as unknown as NodeClaim, i, disruptionId),
  ) as unknown as DisruptInput['replacements'];
  const state = { ...input, candidates, replacements, disruptionId };
  if (input.interruption) return { ...state, deadlineMs: epochMs(input.interruption.drainBy), pollSeconds: INTERRUPTION_POLL_SECONDS };
  return { ...state, deadlineMs: addMs(deps.clock.now(), LifecycleTimings.replacementReadyTimeoutMs), pollSeconds: POLL_SECONDS };
}

/** True when the claim was created by `disruptionId` (carries its annotation). */
const createdBy = (claim: NodeClaim, disruptionId: string) => claim.annotations?.[Annotation.disruptionId] === disruptionId;

async function candidateNode(deps: Pick<LifecycleDeps, 'cluster'>, c: { nodeClaimName: string; nodeName?: string }): Promise<string | undefined> {
  return c.nodeName ?? (await deps.cluster.getNodeClaim(c.nodeClaimName))?.status.nodeName;
}

export async function taintCandidates(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>,
  state: DisruptionState,
  disruptedBy?: string,
): Promise<DisruptionState> {
  for (const c of state.candidates) {
    const nodeName = await candidateNode(deps, c);
    const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
    if (node && !node.taints.some((t) => t.key === TaintKey.disrupted)) {
      await deps.cluster.patchNode(node.name, {
        taints: [...node.taints, { key: TaintKey.disrupted, effect: 'NoSchedule' }],
        ...(disruptedBy ? { annotations: { [Annotation.disruptedBy]: disruptedBy } } : {}),
      });
      deps.log.info('tainted node', { node: node.name, nodeclaim: c.nodeClaimName, taint: `${TaintKey.disrupted}:NoSchedule`, reason: state.reason });
    }
    await deps.cluster.patchNodeClaimStatus(c.nodeClaimName, { conditions: [condition('DisruptionReason', 'True', deps.clock.now(), state.reason)] });
  }
  return state;
}

/** Karpenter's reason label form: Underutilized → underutilized, SpotInterruption → spot_interruption. */
const snakeCase = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Creates one replacement claim and starts its `launch` execution (named after the claim). A claim of that
 * name that this disruption did not create is never adopted: NodeClaimConflictError, nothing launched.
 * A claim this disruption created (a retried step) is launched again, which is idempotent.
 */
export async function launchReplacement(
  deps: Pick<LifecycleDeps, 'cluster' | 'log' | 'metrics' | 'workflows'>,
  input: { nodeClaim: NodeClaim; disruptionId: string; reason?: string },
): Promise<{ nodeClaimName: string }> {
  const name = input.nodeClaim.name;
  if (!createdBy(input.nodeClaim, input.disruptionId)) {
    throw new ExecutionInputInvalidError(
      `replacement nodeclaim "${name}" is not marked ${Annotation.disruptionId}=${input.disruptionId} (ValidateDisruptInput names and marks replacements)`,
    );
  }
  const conflict = (claim: NodeClaim) =>
    new NodeClaimConflictError(
      `nodeclaim "${name}" already exists and was not created by disruption ${input.disruptionId} (${Annotation.disruptionId}=${claim.annotations?.[Annotation.disruptionId] ?? 'unset'}); not adopting it`,
    );
  const existing = await deps.cluster.getNodeClaim(name);
  if (existing && !createdBy(existing, input.disruptionId)) throw conflict(existing);
  // The API server answers a create that lost a race with the existing object (409): check whose it is.
  const claim = existing ?? (await deps.cluster.createNodeClaim(input.nodeClaim));
  if (!createdBy(claim, input.disruptionId)) throw conflict(claim);
  deps.log.info('created nodeclaim', {
    nodeclaim: claim.name,
    nodepool: claim.nodePool,
    disruption: input.disruptionId,
    'instance-types': (claim.spec.requirements.find((r) => r.key === Label.instanceType)?.values ?? []).slice(0, 5).join(', '),
  });
  await deps.workflows.start('launch', claim.name, { nodeClaimName: claim.name });
  // Once per replacement: a retried step finds its own claim and does not count it again.
  if (!existing)
    deps.metrics.count('karpenter_nodeclaims_created_total', {
      reason: snakeCase(input.reason ?? 'disruption'),
      nodepool: claim.nodePool,
      min_values_relaxed: 'false',
    });
  return { nodeClaimName: claim.name };
}

/**
 * Are the replacements initialized? A gone replacement (failed launch) or the deadline fails a disruption
 * (rollback); an interruption drains anyway — its node is going — and the provisioner plans the pods left.
 */
export async function checkReplacementsReady(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>,
  state: DisruptionState,
): Promise<DisruptionState & { ready: boolean }> {
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
        nodeclaim: state.candidates.map((c) => c.nodeClaimName).join(', '),
        reason: state.reason,
        ...(gone.length ? { failed: gone.join(', ') } : {}),
        ...(late ? { waiting: waiting.join(', ') } : {}),
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
export async function startTerminations(
  deps: Pick<LifecycleDeps, 'clock' | 'store' | 'workflows'>,
  state: DisruptionState,
): Promise<DisruptionState & { terminations: string[] }> {
  const terminations: string[] = [];
  for (const c of state.candidates) {
    const name = executionName(c.nodeClaimName, state.disruptionId);
    await deps.workflows.start('terminate', name, {
      nodeClaimName: c.nodeClaimName,
      reason: state.reason,
      ...(state.drainSeconds !== undefined ? { drainSeconds: state.drainSeconds } : {}),
    });
    terminations.push(name);
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'disruption',
    action: 'disrupting',
    reason: state.reason,
    nodeClaims: state.candidates.map((c) => c.nodeClaimName),
    detail: { replacements: state.replacements.map((r) => r.name), disruptionId: state.disruptionId },
  });
  return { ...state, terminations };
}

/** Rollback: remove the disrupted taint from the candidates and terminate any replacement that was created. */
export async function untaintCandidates(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store' | 'workflows'>,
  state: DisruptionState,
  failure?: string,
): Promise<{ disruptionId: string; untainted: string[]; rolledBack: string[] }> {
  const untainted: string[] = [];
  for (const c of state.candidates) {
    const nodeName = await candidateNode(deps, c);
    const node = nodeName ? await deps.cluster.getNode(nodeName) : undefined;
    if (node && node.taints.some((t) => t.key === TaintKey.disrupted)) {
      await deps.cluster.patchNode(node.name, {
        taints: node.taints.filter((t) => t.key !== TaintKey.disrupted),
        annotations: { [Annotation.disruptedBy]: null },
      });
      untainted.push(node.name);
      deps.log.info('untainted node', { node: node.name, nodeclaim: c.nodeClaimName, reason: failure });
    }
    if (await deps.cluster.getNodeClaim(c.nodeClaimName)) {
      await deps.cluster.patchNodeClaimStatus(c.nodeClaimName, { conditions: [condition('DisruptionReason', 'False', deps.clock.now(), 'Rollback')] });
    }
  }
  const rolledBack: string[] = [];
  const skipped: string[] = [];
  for (const r of state.replacements) {
    const claim = await deps.cluster.getNodeClaim(r.name);
    if (claim && !createdBy(claim, state.disruptionId)) {
      // Not ours (another actor's claim under this name): never terminated by this rollback.
      skipped.push(r.name);
      deps.log.warn('not rolling back nodeclaim: not created by this disruption', {
        nodeclaim: r.name,
        disruption: state.disruptionId,
        owner: claim.annotations?.[Annotation.disruptionId] ?? 'none',
      });
      continue;
    }
    if (claim) {
      await deps.workflows.start('terminate', executionName(r.name, 'rollback', state.disruptionId), { nodeClaimName: r.name, reason: 'DisruptionRollback' });
      rolledBack.push(r.name);
    }
  }
  await deps.store.audit({
    at: deps.clock.now(),
    kind: 'disruption',
    action: 'rolled-back',
    reason: failure ?? state.reason,
    nodeClaims: state.candidates.map((c) => c.nodeClaimName),
    detail: { replacements: rolledBack, disruptionId: state.disruptionId, ...(skipped.length ? { notOurs: skipped } : {}) },
  });
  return { disruptionId: state.disruptionId, untainted, rolledBack };
}
