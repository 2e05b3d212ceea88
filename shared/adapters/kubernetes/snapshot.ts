/** One consistent read of everything the planner needs, paged, mapped with the core's from-kube functions. */
import type { ClusterSnapshot } from '../../core/ports/cluster-client';
import {
  daemonSetFromKube,
  nodeClaimFromKube,
  nodeClassFromKube,
  nodeFromKube,
  nodePoolFromKube,
  pdbFromKube,
  podFromKube,
  pvcFromKube,
  pvFromKube,
  storageClassFromKube,
} from '../../core/model/from-kube';
import { KarpenterResources, type KubeApis } from './apis';

type Json = Record<string, unknown>;
type Page = { items: Json[]; metadata?: unknown };

/** The `continue` token of a list page. */
function continueOf(list: { metadata?: unknown }): string | undefined {
  return ((list.metadata ?? {}) as { continue?: string }).continue || undefined;
}

/** Follows `continue` tokens until the list is complete. */
export async function listAll(fetchPage: (cont: string | undefined, limit: number) => Promise<Page>, pageSize: number): Promise<Json[]> {
  const out: Json[] = [];
  let cont: string | undefined;
  do {
    const page = await fetchPage(cont, pageSize);
    out.push(...(page.items ?? []));
    cont = continueOf(page);
  } while (cont);
  return out;
}

/** Pods that hold (or will hold) resources: terminal pods are left out, as Karpenter's cluster state does. */
export const ACTIVE_PODS = 'status.phase!=Succeeded,status.phase!=Failed';

interface Mapped<T> {
  ok: T[];
  invalid: { kind: string; name: string; reason: string }[];
}

export function mapEach<T>(kind: string, items: Json[], fn: (o: Json) => T): Mapped<T> {
  const out: Mapped<T> = { ok: [], invalid: [] };
  for (const o of items) {
    try {
      out.ok.push(fn(o));
    } catch (err) {
      const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
      const name = meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
      out.invalid.push({ kind, name, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

export async function readSnapshot(apis: KubeApis, pageSize: number): Promise<ClusterSnapshot> {
  const { core, apps, policy, storage, scheduling, custom } = apis;
  const all = (fetchPage: (c: string | undefined, l: number) => Promise<Page>) => listAll(fetchPage, pageSize);
  const customList = (r: { group: string; version: string; plural: string }) => all((c, l) => custom.listClusterCustomObject({ ...r, _continue: c, limit: l }));

  const [pods, nodes, daemonSets, pdbs, pvs, pvcs, storageClasses, priorityClasses, nodePools, nodeClasses, nodeClaims] = await Promise.all([
    all((c, l) => core.listPodForAllNamespaces({ fieldSelector: ACTIVE_PODS, _continue: c, limit: l })),
    all((c, l) => core.listNode({ _continue: c, limit: l })),
    all((c, l) => apps.listDaemonSetForAllNamespaces({ _continue: c, limit: l })),
    all((c, l) => policy.listPodDisruptionBudgetForAllNamespaces({ _continue: c, limit: l })),
    all((c, l) => core.listPersistentVolume({ _continue: c, limit: l })),
    all((c, l) => core.listPersistentVolumeClaimForAllNamespaces({ _continue: c, limit: l })),
    all((c, l) => storage.listStorageClass({ _continue: c, limit: l })),
    all((c, l) => scheduling.listPriorityClass({ _continue: c, limit: l })),
    customList(KarpenterResources.nodePools),
    customList(KarpenterResources.nodeClasses),
    customList(KarpenterResources.nodeClaims),
  ]);

  const classes: Record<string, number> = {};
  let defaultPriority: number | undefined;
  for (const pc of priorityClasses) {
    const name = String((pc.metadata as Json | undefined)?.name ?? '');
    classes[name] = Number(pc.value ?? 0);
    if (pc.globalDefault === true) defaultPriority = Number(pc.value ?? 0);
  }

  const results = {
    pods: mapEach('Pod', pods, (o) => podFromKube(o, { priorityClasses: classes, defaultPriority })),
    nodes: mapEach('Node', nodes, (o) => nodeFromKube(o)),
    daemonSets: mapEach('DaemonSet', daemonSets, (o) => daemonSetFromKube(o, { priorityClasses: classes, defaultPriority })),
    pdbs: mapEach('PodDisruptionBudget', pdbs, (o) => pdbFromKube(o)),
    persistentVolumes: mapEach('PersistentVolume', pvs, (o) => pvFromKube(o)),
    persistentVolumeClaims: mapEach('PersistentVolumeClaim', pvcs, (o) => pvcFromKube(o)),
    storageClasses: mapEach('StorageClass', storageClasses, (o) => storageClassFromKube(o)),
    nodePools: mapEach('NodePool', nodePools, (o) => nodePoolFromKube(o, { file: `nodepool/${String((o.metadata as Json | undefined)?.name ?? '')}` })),
    nodeClasses: mapEach('EC2NodeClass', nodeClasses, (o) =>
      nodeClassFromKube(o, { file: `ec2nodeclass/${String((o.metadata as Json | undefined)?.name ?? '')}` }),
    ),
    nodeClaims: mapEach('NodeClaim', nodeClaims, (o) => nodeClaimFromKube(o)),
  };
  const invalid = Object.values(results).flatMap((r) => r.invalid);
  return {
    pods: results.pods.ok,
    nodes: results.nodes.ok,
    daemonSets: results.daemonSets.ok,
    pdbs: results.pdbs.ok,
    persistentVolumes: results.persistentVolumes.ok,
    persistentVolumeClaims: results.persistentVolumeClaims.ok,
    storageClasses: results.storageClasses.ok,
    nodePools: results.nodePools.ok,
    nodeClasses: results.nodeClasses.ok,
    nodeClaims: results.nodeClaims.ok,
    ...(invalid.length > 0 ? { invalid } : {}),
  };
}
