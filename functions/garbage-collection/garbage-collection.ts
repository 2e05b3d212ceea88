/**
 * garbage-collection — scheduled every 2 minutes (docs/karpenter-reference.md §6.2, §6.5): terminates cluster-tagged
 * instances no NodeClaim owns, removes NodeClaims whose instance is gone, and ends claims that did not
 * launch (5 min) or register (15 min) in time: shared/core/garbage-collection/run.ts.
 */
import { runGarbageCollection, type GarbageCollectionDeps, type GarbageCollectionResult } from '../../shared/core/garbage-collection/run';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud, instanceProfiles, launchTemplates } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { prices } from '../../shared/adapters/compose/parts/prices';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

export const createHandler =
  (deps: GarbageCollectionDeps) =>
  (_event?: unknown): Promise<GarbageCollectionResult> =>
    runGarbageCollection(deps);

/** The deployed function (EventBridge schedule, rate 2 minutes). */
export const handler = deployedHandler('garbageCollection', { cluster, cloud, store, workflows, prices, instanceProfiles, launchTemplates }, (deps) =>
  createHandler({ ...deps, clusterName: deps.config.clusterName }),
);
