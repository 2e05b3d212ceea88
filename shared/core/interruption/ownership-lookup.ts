/**
 * Which instances of a batch nodewright owns, and their NodeClaims, read for that batch only (docs/interruption.md,
 * "What the function reads"). One DescribeInstances by the batch's instance ids, filtered by this cluster's
 * ownership tag and a NodePool tag, decides ownership: an event about any other instance costs no Kubernetes read.
 * For an owned instance, its NodeClaim is read by the name its `karpenter.sh/nodeclaim` tag gives (the NodeClaims
 * are listed only for an instance without that tag), and it is the instance's claim only when the claim's
 * providerID names it (a tag alone is not trusted, see buildOwnershipIndex). Its Node is read by name only when
 * the decision needs its taints.
 */
import type { CloudInstance, CloudProvider, ClusterClient, ScopedClusterReads } from '../ports';
import type { NodeClaim } from '../model/karpenter';
import type { Node } from '../model/kube';
import { Tag } from '../model/labels';
import { parseInterruptionMessage } from './events';
import { buildOwnershipIndex, isClusterOwnedInstance, type OwnedInstance } from './ownership';

export type OwnershipLookup = (instanceIds: string[], opts?: { withNodes?: boolean }) => Promise<(instanceId: string) => OwnedInstance | undefined>;

/** The cluster reads of one batch. */
export type InterruptionReads = Pick<ClusterClient, 'getNodeClaim' | 'getNode' | 'listPodsOnNode'> & ScopedClusterReads;

/** A loader run at most once (a failed load is retried by the next call). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((e: unknown) => {
      pending = undefined; // a failed read is retried by the next record, not cached
      throw e;
    });
    return pending;
  };
}

/** `once` per key. */
function onceByKey<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const loaders = new Map<string, () => Promise<T>>();
  return (key) => {
    let l = loaders.get(key);
    if (!l) loaders.set(key, (l = once(() => load(key))));
    return l();
  };
}

/**
 * The batch's reads, each object read at most once per batch: the ownership lookup, the drain and the replacement
 * planning of one message (and its duplicates in the same batch) share them.
 */
export function batchReads(cluster: InterruptionReads): InterruptionReads {
  return {
    getNodeClaim: onceByKey((name) => cluster.getNodeClaim(name)),
    getNode: onceByKey((name) => cluster.getNode(name)),
    getNodePool: onceByKey((name) => cluster.getNodePool(name)),
    listNodeClaims: once(() => cluster.listNodeClaims()),
    schedulingConfig: once(() => cluster.schedulingConfig()),
    listPodsOnNode: (nodeName) => cluster.listPodsOnNode(nodeName),
    volumesOf: (claims) => cluster.volumesOf(claims),
  };
}

/** The instance ids the batch's messages name (unparseable and filtered ones name none): what one DescribeInstances asks for. */
export function batchInstanceIds(bodies: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const body of bodies) {
    try {
      const message = parseInterruptionMessage(body);
      if (message.kind !== 'NoOp') for (const id of message.instanceIds) ids.add(id);
    } catch {
      // reported as its record's failure when the record is processed
    }
  }
  return [...ids];
}

const uniqueBy = <T>(items: T[], key: (t: T) => string): T[] => [...new Map(items.map((i) => [key(i), i])).values()];

export function createOwnershipLookup(
  deps: { cloud: Pick<CloudProvider, 'describeOwned'>; reads: Pick<InterruptionReads, 'getNodeClaim' | 'getNode' | 'listNodeClaims'>; clusterName: string },
  batchIds: readonly string[],
): OwnershipLookup {
  const described = once<CloudInstance[]>(() => (batchIds.length > 0 ? deps.cloud.describeOwned({ instanceIds: batchIds }) : Promise.resolve([])));
  return async (instanceIds, opts = {}) => {
    const owned = (await described()).filter((i) => instanceIds.includes(i.instanceId) && isClusterOwnedInstance(i, deps.clusterName));
    if (owned.length === 0) return () => undefined;
    const tagged = [...new Set(owned.map((i) => i.tags[Tag.nodeClaim]).filter((n): n is string => !!n))];
    const named = (await Promise.all(tagged.map((n) => deps.reads.getNodeClaim(n)))).filter((c): c is NodeClaim => c !== undefined);
    const listed = owned.some((i) => !i.tags[Tag.nodeClaim]) ? await deps.reads.listNodeClaims() : [];
    const claims = uniqueBy([...named, ...listed], (c) => c.name);
    // A named claim that records no providerID yet is the instance's only when no other instance carries its tag.
    const launching = named.filter((c) => !c.status.providerID);
    const carriers = (await Promise.all(launching.map((c) => deps.cloud.describeOwned({ nodeClaim: c.name })))).flat();
    const instances = uniqueBy([...owned, ...carriers], (i) => i.instanceId);
    let index = buildOwnershipIndex(deps.clusterName, instances, claims);
    if (opts.withNodes) {
      const names = [...new Set(instanceIds.map((id) => index.get(id)).flatMap((o) => (o?.nodeName && !o.disrupting ? [o.nodeName] : [])))];
      const nodes = (await Promise.all(names.map((n) => deps.reads.getNode(n)))).filter((n): n is Node => n !== undefined);
      if (nodes.length > 0) index = buildOwnershipIndex(deps.clusterName, instances, claims, nodes);
    }
    return (id) => (instanceIds.includes(id) ? index.get(id) : undefined);
  };
}
