/** Registration and initialization of a launched NodeClaim's Node (docs/karpenter-reference.md §6.2–6.4). */
import { DeadlineExceededError } from '../errors';
import type { Node, ObjectOwnerReference, Taint } from '../model/kube';
import { conditionIsTrue, type NodeClaim } from '../model/karpenter';
import { Annotation, EphemeralTaintKeys, Label, TaintKey } from '../model/labels';
import type { NodePatch } from '../ports';
import { condition, requireNodeClaim } from './claims';
import { LifecycleTimings, type LifecycleDeps } from './deps';
import { claimStep, recordEvents } from './events';
import { withTerminationFinalizer } from './finalizers';
import { epochMs, type EpochMs } from '../time';
import { eachLimited } from '../concurrency';
import { plannedPodRefs } from '../provisioning/planned-pods';
import { tagRegisteredInstance } from './tagging';

export type RegistrationResult =
  | { nodeClaimName: string; registered: true; nodeName: string; providerID: string; deadlineMs: EpochMs }
  | { nodeClaimName: string; registered: false; timedOut: boolean; providerID?: string; deadlineMs: EpochMs };

const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;

/** Node taints after sync: the node's own (minus unregistered) plus the claim's taints and startup taints. */
function syncedTaints(node: Node, claim: NodeClaim): Taint[] {
  const out = node.taints.filter((t) => t.key !== TaintKey.unregistered);
  if (node.annotations[Annotation.doNotSyncTaints] === 'true') return out;
  for (const t of [...claim.spec.taints, ...claim.spec.startupTaints]) {
    if (!out.some((o) => sameTaint(o, t))) out.push(t);
  }
  return out;
}

/** nodewright's own bookkeeping annotations (disruption ids, pod fingerprints) stay on the NodeClaim. */
const NODEWRIGHT_PREFIX = 'nodewright.io/';

/**
 * The claim's annotations as Karpenter's registration copies them onto the Node (every key of the claim;
 * the template's, e.g. karpenter.sh/do-not-disrupt, and the drift hashes) minus nodewright's bookkeeping keys,
 * which Karpenter has no equivalent of and which mean something else on a Node.
 */
function nodeAnnotationsFromClaim(claim: NodeClaim): Record<string, string> {
  return Object.fromEntries(Object.entries(claim.annotations).filter(([k]) => !k.startsWith(NODEWRIGHT_PREFIX)));
}

/**
 * The claim's Node: by name once the claim records it (a GET), else among the nodes not yet registered (a label-selected
 * list that grows with the nodes joining, not with the cluster). Either way its providerID must be the claim's.
 */
async function claimNode(deps: Pick<LifecycleDeps, 'cluster'>, claim: NodeClaim, providerID: string): Promise<Node | undefined> {
  const named = claim.status.nodeName ? await deps.cluster.getNode(claim.status.nodeName) : undefined;
  if (named?.providerID === providerID) return named;
  return deps.cluster.findUnregisteredNode(providerID);
}

/** The node's owner references with its NodeClaim's (Karpenter's registration), blocking the claim's deletion until the node goes. */
function withClaimOwner(node: Node, name: string, uid: string): ObjectOwnerReference[] {
  const others = (node.ownerReferences ?? []).filter((r) => !(r.apiVersion === 'karpenter.sh/v1' && r.kind === 'NodeClaim' && r.uid === uid));
  return [...others, { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name, uid, blockOwnerDeletion: true }];
}

/**
 * What registration writes on the claim's Node: the claim's labels (and `karpenter.sh/nodepool`) plus registered=true,
 * its annotations (see nodeAnnotationsFromClaim), the synced taints, the termination finalizer and the claim as owner.
 */
export function registeredNodePatch(node: Node, claim: NodeClaim): NodePatch {
  return {
    labels: { ...claim.labels, ...(claim.nodePool ? { [Label.nodePool]: claim.nodePool } : {}), [Label.registered]: 'true' },
    annotations: nodeAnnotationsFromClaim(claim),
    taints: syncedTaints(node, claim),
    // The API refuses new finalizers on an object being deleted; such a Node is on its way out anyway.
    ...(node.deletionTimestamp === undefined ? { finalizers: withTerminationFinalizer(node.finalizers) } : {}),
    ...(claim.uid ? { ownerReferences: withClaimOwner(node, claim.name, claim.uid) } : {}),
  };
}

/** Pod status writes in flight at once while a node registers. */
const NOMINATE_CONCURRENCY = 16;

/**
 * The pods the claim was planned for get `status.nominatedNodeName` = its node: kube-scheduler tries that node first
 * and holds their room there from pods of no higher priority (KEP-5278), so the layout the planner chose — a tight,
 * re-packed one — is the one that binds; without it, pods of other claims that come up first can take that room
 * and leave planned pods with nowhere to go (a 222-pod web tier: 93 pods pending, three extra nodes). A pod bound or
 * gone meanwhile costs one write.
 */
async function nominatePlannedPods(deps: Pick<LifecycleDeps, 'cluster'>, claim: NodeClaim, nodeName: string): Promise<void> {
  const pods = plannedPodRefs(claim).filter((r): r is { namespace: string; name: string; uid: string } => r.name !== undefined);
  await eachLimited(pods, NOMINATE_CONCURRENCY, (p) => deps.cluster.nominatePod(p, nodeName));
}

/**
 * One registration check. When the claim's Node exists (matched by providerID): sync labels and taints onto
 * it (annotations too, see nodeAnnotationsFromClaim), remove `karpenter.sh/unregistered`, add the `karpenter.sh/termination` finalizer, label it registered
 * and set Registered=True. Past the deadline without a Node: `timedOut`, and the machine terminates the
 * instance and deletes the claim.
 */
export async function checkRegistration(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'metrics'> & { cloud: Pick<LifecycleDeps['cloud'], 'tagInstance'> },
  input: { nodeClaimName: string; deadlineMs: EpochMs },
): Promise<RegistrationResult> {
  const claim = await requireNodeClaim(deps.cluster, input.nodeClaimName);
  const providerID = claim.status.providerID;
  const node = providerID ? await claimNode(deps, claim, providerID) : undefined;
  const now = deps.clock.now();
  if (!node || !providerID) {
    return {
      nodeClaimName: input.nodeClaimName,
      registered: false,
      timedOut: now >= input.deadlineMs,
      deadlineMs: input.deadlineMs,
      ...(providerID ? { providerID } : {}),
    };
  }
  if (!conditionIsTrue(claim, 'Registered')) {
    // The claim names its node first: once the node is labelled registered, the unregistered-node read no longer finds it.
    if (claim.status.nodeName !== node.name) await deps.cluster.patchNodeClaimStatus(input.nodeClaimName, { nodeName: node.name });
    // Before the unregistered taint goes, so kube-scheduler meets the pods already nominated here.
    await nominatePlannedPods(deps, claim, node.name);
    await deps.cluster.patchNode(node.name, registeredNodePatch(node, claim));
    await deps.cluster.patchNodeClaimStatus(input.nodeClaimName, { conditions: [condition('Registered', 'True', now)] });
    await tagRegisteredInstance(deps, claim, node.name, providerID);
    await recordEvents(deps, [claimStep(claim, 'Registered', `Registered node/${node.name}`)]);
    deps.metrics.count('karpenter_nodes_created_total', { nodepool: claim.nodePool, zone: node.labels[Label.zone] ?? claim.labels[Label.zone] ?? '' });
    deps.log.info('registered nodeclaim', { nodeclaim: input.nodeClaimName, nodepool: claim.nodePool, node: node.name, 'provider-id': providerID });
  }
  return {
    nodeClaimName: input.nodeClaimName,
    registered: true,
    nodeName: node.name,
    providerID,
    deadlineMs: epochMs(now + LifecycleTimings.initializationTimeoutMs),
  };
}

export type InitializationResult = { nodeClaimName: string; nodeName: string; initialized: boolean; deadlineMs: EpochMs; waitingFor?: string };

/**
 * Initialized when the Node is Ready, the claim's startup taints and the ephemeral taints are gone, and
 * requested extended resources show allocatable. Then `karpenter.sh/initialized=true` and Initialized=True.
 */
export async function initializeNode(
  deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log'>,
  input: { nodeClaimName: string; nodeName: string; deadlineMs: EpochMs },
): Promise<InitializationResult> {
  const claim = await requireNodeClaim(deps.cluster, input.nodeClaimName);
  const base = { nodeClaimName: input.nodeClaimName, nodeName: input.nodeName, deadlineMs: input.deadlineMs };
  if (conditionIsTrue(claim, 'Initialized')) return { ...base, initialized: true };
  const node = await deps.cluster.getNode(input.nodeName);
  const waitingFor = !node ? 'node' : notInitializedReason(node, claim);
  if (waitingFor) {
    if (deps.clock.now() >= input.deadlineMs) {
      throw new DeadlineExceededError(`nodeclaim "${input.nodeClaimName}" was not initialized before its deadline (waiting for ${waitingFor})`);
    }
    return { ...base, initialized: false, waitingFor };
  }
  await deps.cluster.patchNode(input.nodeName, { labels: { [Label.initialized]: 'true' } });
  await deps.cluster.patchNodeClaimStatus(input.nodeClaimName, {
    ...(node ? { allocatable: node.allocatable, capacity: node.capacity } : {}),
    conditions: [condition('Initialized', 'True', deps.clock.now()), condition('Ready', 'True', deps.clock.now())],
  });
  await recordEvents(deps, [claimStep(claim, 'Initialized', `Initialized node/${input.nodeName}`)]);
  deps.log.info('initialized nodeclaim', { nodeclaim: input.nodeClaimName, nodepool: claim.nodePool, node: input.nodeName, allocatable: node?.allocatable });
  return { ...base, initialized: true };
}

function notInitializedReason(node: Node, claim: NodeClaim): string | undefined {
  if (!node.ready) return 'node Ready';
  const startup = node.taints.find((t) => claim.spec.startupTaints.some((s) => sameTaint(s, t)));
  if (startup) return `startup taint ${startup.key}`;
  const ephemeral = node.taints.find((t) => EphemeralTaintKeys.has(t.key));
  if (ephemeral) return `taint ${ephemeral.key}`;
  for (const [resource, qty] of Object.entries(claim.spec.resources.requests)) {
    if (resource.includes('/') && qty > 0 && !(node.allocatable[resource] > 0)) return `allocatable ${resource}`;
  }
  return undefined;
}
