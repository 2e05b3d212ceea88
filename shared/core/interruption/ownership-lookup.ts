/**
 * Resolves which instances of a batch nodewright owns, and their NodeClaims. One `CloudProvider.list()`
 * and one read of the NodeClaims per invocation: an instance belongs to the claim whose providerID names it
 * (a `karpenter.sh/nodeclaim` tag alone is not trusted, see buildOwnershipIndex).
 */
import type { CloudInstance, CloudProvider, ClusterClient } from '../ports';
import { buildOwnershipIndex, type OwnedInstance } from './ownership';

export type OwnershipLookup = (instanceIds: string[]) => Promise<(instanceId: string) => OwnedInstance | undefined>;

/** A loader run at most once (a failed load is retried by the next call). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((e: unknown) => {
      pending = undefined; // a failed read is retried by the next record, not cached
      throw e;
    });
    return pending;
  };
}

export function createOwnershipLookup(deps: { cloud: CloudProvider; cluster: ClusterClient; clusterName: string }): OwnershipLookup {
  const instances = once<CloudInstance[]>(() => deps.cloud.list());
  const snapshot = once(() => deps.cluster.snapshot());
  return async () => {
    const { nodeClaims, nodes } = await snapshot();
    const index = buildOwnershipIndex(deps.clusterName, await instances(), nodeClaims, nodes);
    return (id) => index.get(id);
  };
}
