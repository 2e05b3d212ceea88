/**
 * What planning an interrupted node's replacements reads (docs/interruption.md, "What the function reads"): the
 * node's pods (one list with the field selector `spec.nodeName=<node>`), the cluster's configuration (NodePools,
 * EC2NodeClasses, DaemonSets, StorageClasses: tens of objects, read once per batch) and the volumes those pods
 * claim (their PersistentVolumeClaims and the volumes bound to them, by name) — never the rest of the workload.
 *
 * The replacements are sized for the node's own pods on new capacity: other nodes and their free room are not
 * read. In a storm, the room another node seems to have is often on a node that is itself interrupted; the
 * provisioner, which sees the whole cluster, places the evicted pods wherever they fit first, and consolidation
 * removes a replacement left empty. NodePool limits count from the pools' `status.resources`.
 */
import type { NodeClaim } from '../model/karpenter';
import type { ResourceList } from '../model/resources';
import { parseResourceList } from '../model/resources';
import type { ClusterSnapshot } from '../ports/cluster-client';
import type { InterruptionReads } from './ownership-lookup';

export interface ReplacementInputs {
  /** Only what the plan needs: the claim, its node's pods, the configuration and those pods' volumes. */
  snapshot: ClusterSnapshot;
  /** Capacity in use per NodePool, from each pool's status (for its limits). */
  poolUsage: Record<string, ResourceList>;
}

export async function readReplacementInputs(
  reads: Pick<InterruptionReads, 'schedulingConfig' | 'listPodsOnNode' | 'volumesOf'>,
  claim: NodeClaim,
): Promise<ReplacementInputs> {
  const nodeName = claim.status.nodeName;
  const [config, pods] = await Promise.all([reads.schedulingConfig(), nodeName ? reads.listPodsOnNode(nodeName) : Promise.resolve([])]);
  const claims = pods.flatMap((p) => p.volumeClaims.map((v) => ({ namespace: p.namespace, name: v.claimName })));
  const volumes = claims.length > 0 ? await reads.volumesOf(claims) : { persistentVolumeClaims: [], persistentVolumes: [] };
  const poolUsage: Record<string, ResourceList> = {};
  for (const pool of config.nodePools) {
    try {
      if (pool.observedStatus) poolUsage[pool.name] = parseResourceList(pool.observedStatus.resources);
    } catch {
      // an unreadable status counts as no usage: the pool's limits are checked again when the claim launches
    }
  }
  return {
    snapshot: { ...config, ...volumes, pods, nodes: [], nodeClaims: [claim], pdbs: [] },
    poolUsage,
  };
}
