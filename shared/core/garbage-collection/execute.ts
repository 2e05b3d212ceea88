/**
 * Performs one garbage-collection action. Each action is independent: a failure is reported and the
 * next scheduled run (2 min) tries again from a fresh read.
 */
import type { CloudProvider, ClusterClient, Clock, StateStore } from '../ports';
import type { GarbageCollectionAction } from './decide';
import { isInstanceNotOwnedError, isNodeClaimNotFoundError } from '../errors';
import type { LifecycleLogger } from '../lifecycle/deps';
import { deleteAndReleaseNode, deleteAndReleaseNodeClaim } from '../lifecycle/finalizers';
import { recordEvents } from '../lifecycle/events';
import { instanceIdFromProviderID } from '../interruption/ownership';

/** Structured logger (the Powertools Logger through `lifecycleLogger`). */

export interface ExecuteDeps {
  cluster: ClusterClient;
  cloud: CloudProvider;
  store: StateStore;
  clock: Pick<Clock, 'now'>;
  log: LifecycleLogger;
}

export type ActionOutcome = 'done' | 'skipped' | 'refused';

/** Terminates an instance; an instance already gone is success, a foreign one is refused by the cloud provider. */
async function terminateInstance(deps: ExecuteDeps, providerID: string): Promise<'terminated' | 'gone' | 'refused'> {
  try {
    await deps.cloud.delete(providerID);
    return 'terminated';
  } catch (e) {
    if (isNodeClaimNotFoundError(e)) return 'gone';
    if (isInstanceNotOwnedError(e)) {
      deps.log.warn('refused to terminate an instance this cluster does not own', { providerID, error: e });
      return 'refused';
    }
    throw e;
  }
}

/** The instance is gone or was just terminated: nothing is left to drain, so finalize and delete the claim. */
async function removeClaim(deps: ExecuteDeps, name: string): Promise<void> {
  await deleteAndReleaseNodeClaim(deps.cluster, name);
}

/**
 * Confirms with a direct lookup that a claim's instance is really gone (a list can lag behind): shutting down or
 * terminated is gone; EC2 not knowing the id is "not known yet" until `notFoundIsGone`, because DescribeInstances
 * by id answers InvalidInstanceID.NotFound for a while after CreateFleet returned the instance.
 */
async function instanceIsGone(deps: ExecuteDeps, providerID: string, notFoundIsGone: boolean): Promise<'gone' | 'exists' | 'not known yet'> {
  try {
    const found = await deps.cloud.get(providerID);
    return found.state === 'terminated' || found.state === 'shutting-down' ? 'gone' : 'exists';
  } catch (e) {
    if (isNodeClaimNotFoundError(e)) return e.terminated || notFoundIsGone ? 'gone' : 'not known yet';
    throw e;
  }
}

/**
 * Whether an orphan candidate is really orphaned: its tagged claim is read by name (the list can leave out a claim
 * created since, or one this version cannot read). A claim that exists but cannot be read keeps its instance and
 * is reported (warning and Event naming the claim and what failed to parse); a claim with no providerID yet (in
 * flight) or naming this instance keeps it too. Only a claim that is gone, or that names another instance, lets it go.
 */
async function orphanClaimKeeps(
  deps: ExecuteDeps,
  action: Extract<GarbageCollectionAction, { type: 'terminateOrphanInstance' }>,
): Promise<ActionOutcome | undefined> {
  if (!action.nodeClaim) return undefined;
  const read = await deps.cluster.readNodeClaim(action.nodeClaim);
  if (!read.found) return undefined;
  const fields = { nodeclaim: action.nodeClaim, instanceId: action.instanceId, providerID: action.providerID, node: action.nodeName };
  if ('unreadable' in read) {
    deps.log.warn('nodeclaim exists but cannot be read; keeping its instance', { ...fields, reason: read.unreadable });
    const message = `NodeClaim cannot be read by this version, so its instance ${action.instanceId} is kept: ${read.unreadable}`;
    await recordEvents(deps, [{ object: { kind: 'NodeClaim', name: action.nodeClaim }, type: 'Warning', reason: 'NodeClaimValidationFailed', message }]);
    return 'refused';
  }
  const owner = instanceIdFromProviderID(read.claim.status.providerID);
  if (owner !== undefined && owner !== action.instanceId) return undefined;
  deps.log.info('instance belongs to a nodeclaim the list did not show; keeping it', { ...fields, launching: owner === undefined });
  return 'skipped';
}

export async function executeGarbageCollection(deps: ExecuteDeps, action: GarbageCollectionAction): Promise<ActionOutcome> {
  const audit = (extra: { nodeClaims?: string[]; nodes?: string[]; detail?: Record<string, unknown> }) =>
    deps.store.audit({ at: deps.clock.now(), kind: 'garbage-collection', action: action.type, ...extra });

  switch (action.type) {
    case 'terminateOrphanInstance': {
      const kept = await orphanClaimKeeps(deps, action);
      if (kept) return kept;
      const result = await terminateInstance(deps, action.providerID);
      if (result === 'refused') return 'refused';
      if (action.nodeName) await deleteAndReleaseNode(deps.cluster, action.nodeName);
      deps.log.info('garbage collected instance with no nodeclaim', {
        instanceId: action.instanceId,
        providerID: action.providerID,
        node: action.nodeName,
        ageSeconds: Math.round(action.ageMs / 1000),
        result,
      });
      await audit({
        ...(action.nodeName ? { nodes: [action.nodeName] } : {}),
        detail: { instanceId: action.instanceId, providerID: action.providerID, result },
      });
      return 'done';
    }
    case 'removeClaimWithoutInstance': {
      const instance = await instanceIsGone(deps, action.providerID, action.notFoundIsGone);
      if (instance !== 'gone') {
        const message =
          instance === 'exists'
            ? 'instance still exists; keeping nodeclaim'
            : 'instance not known to EC2 yet (DescribeInstances lags launches); keeping nodeclaim';
        deps.log.info(message, { nodeclaim: action.nodeClaim, providerID: action.providerID });
        return 'skipped';
      }
      if (action.nodeName) await deleteAndReleaseNode(deps.cluster, action.nodeName);
      await removeClaim(deps, action.nodeClaim);
      deps.log.info('garbage collecting nodeclaim with no cloudprovider representation', {
        nodeclaim: action.nodeClaim,
        providerID: action.providerID,
        node: action.nodeName,
      });
      await audit({ nodeClaims: [action.nodeClaim], ...(action.nodeName ? { nodes: [action.nodeName] } : {}), detail: { providerID: action.providerID } });
      return 'done';
    }
    case 'launchTimeout': {
      await removeClaim(deps, action.nodeClaim);
      deps.log.info('deleting nodeclaim, launch timed out', { nodeclaim: action.nodeClaim, ageSeconds: Math.round(action.ageMs / 1000) });
      await audit({ nodeClaims: [action.nodeClaim], detail: { ageMs: action.ageMs } });
      return 'done';
    }
    case 'registrationTimeout': {
      const result = action.providerID ? await terminateInstance(deps, action.providerID) : 'gone';
      if (action.nodeName) await deleteAndReleaseNode(deps.cluster, action.nodeName);
      await removeClaim(deps, action.nodeClaim);
      deps.log.info('deleting nodeclaim, registration timed out', {
        nodeclaim: action.nodeClaim,
        providerID: action.providerID,
        ageSeconds: Math.round(action.ageMs / 1000),
        result,
      });
      await audit({ nodeClaims: [action.nodeClaim], detail: { providerID: action.providerID, ageMs: action.ageMs, result } });
      return 'done';
    }
  }
}
