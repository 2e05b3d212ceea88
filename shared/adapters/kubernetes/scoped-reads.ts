/**
 * The ClusterClient's scoped reads (core/ports/cluster-client.ts `ScopedClusterReads`): objects by name and the cluster's
 * few configuration objects, for a handler that acts on one node and must not list the workload.
 */
import type { NodeClaim, NodePool } from '../../core/model/karpenter';
import {
  daemonSetFromKube,
  nodeClaimFromKube,
  nodeClassFromKube,
  nodeOverlayFromKube,
  nodePoolFromKube,
  pvcFromKube,
  pvFromKube,
  storageClassFromKube,
} from '../../core/model/from-kube';
import type { ClusterSnapshot, SchedulingConfig } from '../../core/ports/cluster-client';
import { KarpenterResources, tolerate, type KubeApis } from './apis';
import { listAll } from './snapshot';

type Json = Record<string, unknown>;

const nameOf = (o: Json): string => String((o.metadata as Json | undefined)?.name ?? '');

/** Maps each object, leaving out those that fail validation (the snapshot reports them; a scoped read only skips them). */
function mapValid<T>(items: Json[], fn: (o: Json) => T): T[] {
  const out: T[] = [];
  for (const o of items) {
    try {
      out.push(fn(o));
    } catch {
      // invalid object: left out
    }
  }
  return out;
}

export async function getNodePool(apis: KubeApis, name: string): Promise<NodePool | undefined> {
  const raw = await tolerate(() => apis.custom.getClusterCustomObject({ ...KarpenterResources.nodePools, name }), [404], undefined);
  return raw ? mapValid([raw], (o) => nodePoolFromKube(o, { file: `nodepool/${name}` }))[0] : undefined;
}

export async function listNodeClaims(apis: KubeApis, pageSize: number): Promise<NodeClaim[]> {
  const items = await listAll((c, l) => apis.custom.listClusterCustomObject({ ...KarpenterResources.nodeClaims, _continue: c, limit: l }), pageSize);
  return mapValid(items, (o) => nodeClaimFromKube(o));
}

export async function readSchedulingConfig(apis: KubeApis, pageSize: number): Promise<SchedulingConfig> {
  const all = (fetchPage: Parameters<typeof listAll>[0]) => listAll(fetchPage, pageSize);
  const custom = (r: { group: string; version: string; plural: string }) =>
    all((c, l) => apis.custom.listClusterCustomObject({ ...r, _continue: c, limit: l }));
  const [nodePools, nodeClasses, daemonSets, storageClasses, nodeOverlays] = await Promise.all([
    custom(KarpenterResources.nodePools),
    custom(KarpenterResources.nodeClasses),
    all((c, l) => apis.apps.listDaemonSetForAllNamespaces({ _continue: c, limit: l })),
    all((c, l) => apis.storage.listStorageClass({ _continue: c, limit: l })),
    // Optional: without the NodeOverlay CRD there are none.
    tolerate(() => custom(KarpenterResources.nodeOverlays), [404], []),
  ]);
  return {
    nodePools: mapValid(nodePools, (o) => nodePoolFromKube(o, { file: `nodepool/${nameOf(o)}` })),
    nodeClasses: mapValid(nodeClasses, (o) => nodeClassFromKube(o, { file: `ec2nodeclass/${nameOf(o)}` })),
    daemonSets: mapValid(daemonSets, (o) => daemonSetFromKube(o)),
    storageClasses: mapValid(storageClasses, (o) => storageClassFromKube(o)),
    nodeOverlays: mapValid(nodeOverlays, (o) => nodeOverlayFromKube(o, { file: `nodeoverlay/${nameOf(o)}` })),
  };
}

export async function readVolumes(
  apis: KubeApis,
  claims: readonly { namespace: string; name: string }[],
): Promise<Pick<ClusterSnapshot, 'persistentVolumeClaims' | 'persistentVolumes'>> {
  const keys = [...new Map(claims.map((c) => [`${c.namespace}/${c.name}`, c])).values()];
  const rawClaims = await Promise.all(keys.map((c) => tolerate(() => apis.core.readNamespacedPersistentVolumeClaim(c), [404], undefined)));
  const persistentVolumeClaims = mapValid(
    rawClaims.filter((o): o is Json => o !== undefined),
    (o) => pvcFromKube(o),
  );
  const bound = [...new Set(persistentVolumeClaims.map((c) => c.volumeName).filter((v): v is string => !!v))];
  const rawVolumes = await Promise.all(bound.map((name) => tolerate(() => apis.core.readPersistentVolume({ name }), [404], undefined)));
  return {
    persistentVolumeClaims,
    persistentVolumes: mapValid(
      rawVolumes.filter((o): o is Json => o !== undefined),
      (o) => pvFromKube(o),
    ),
  };
}
