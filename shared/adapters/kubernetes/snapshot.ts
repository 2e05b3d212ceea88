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

/** Lists every page and maps each as it arrives: only one page of raw JSON is held at a time, never the whole list. */
async function listMapped<T>(
  kind: string,
  fetchPage: (cont: string | undefined, limit: number) => Promise<Page>,
  pageSize: number,
  fn: (o: Json) => T,
): Promise<Mapped<T>> {
  const out: Mapped<T> = { ok: [], invalid: [] };
  let cont: string | undefined;
  do {
    const page = await fetchPage(cont, pageSize);
    const mapped = mapEach(kind, page.items ?? [], fn);
    for (const o of mapped.ok) out.ok.push(o);
    for (const i of mapped.invalid) out.invalid.push(i);
    cont = continueOf(page);
  } while (cont);
  return out;
}

/**
 * One read of everything the planner needs. PriorityClasses come first (a pod's priority needs them); then the other
 * kinds are listed in parallel and each page is mapped into the core's compact model as it arrives, so the raw JSON
 * of 50k pods (≈ 300 MB) is never held at once — only a page of it per kind.
 */
export async function readSnapshot(apis: KubeApis, pageSize: number): Promise<ClusterSnapshot> {
  const { core, apps, policy, storage, scheduling, custom } = apis;
  const priorityClasses = await listAll((c, l) => scheduling.listPriorityClass({ _continue: c, limit: l }), pageSize);
  const classes: Record<string, number> = {};
  let defaultPriority: number | undefined;
  for (const pc of priorityClasses) {
    const name = String((pc.metadata as Json | undefined)?.name ?? '');
    classes[name] = Number(pc.value ?? 0);
    if (pc.globalDefault === true) defaultPriority = Number(pc.value ?? 0);
  }
  const list = <T>(kind: string, fetchPage: (c: string | undefined, l: number) => Promise<Page>, fn: (o: Json) => T) =>
    listMapped(kind, fetchPage, pageSize, fn);
  const custom_ = <T>(kind: string, r: { group: string; version: string; plural: string }, fn: (o: Json) => T) =>
    list(kind, (c, l) => custom.listClusterCustomObject({ ...r, _continue: c, limit: l }), fn);
  const named = (o: Json) => String((o.metadata as Json | undefined)?.name ?? '');
  const podContext = { priorityClasses: classes, defaultPriority };

  const [pods, nodes, daemonSets, pdbs, persistentVolumes, persistentVolumeClaims, storageClasses, nodePools, nodeClasses, nodeClaims] = await Promise.all([
    list(
      'Pod',
      (c, l) => core.listPodForAllNamespaces({ fieldSelector: ACTIVE_PODS, _continue: c, limit: l }),
      (o) => podFromKube(o, podContext),
    ),
    list(
      'Node',
      (c, l) => core.listNode({ _continue: c, limit: l }),
      (o) => nodeFromKube(o),
    ),
    list(
      'DaemonSet',
      (c, l) => apps.listDaemonSetForAllNamespaces({ _continue: c, limit: l }),
      (o) => daemonSetFromKube(o, podContext),
    ),
    list(
      'PodDisruptionBudget',
      (c, l) => policy.listPodDisruptionBudgetForAllNamespaces({ _continue: c, limit: l }),
      (o) => pdbFromKube(o),
    ),
    list(
      'PersistentVolume',
      (c, l) => core.listPersistentVolume({ _continue: c, limit: l }),
      (o) => pvFromKube(o),
    ),
    list(
      'PersistentVolumeClaim',
      (c, l) => core.listPersistentVolumeClaimForAllNamespaces({ _continue: c, limit: l }),
      (o) => pvcFromKube(o),
    ),
    list(
      'StorageClass',
      (c, l) => storage.listStorageClass({ _continue: c, limit: l }),
      (o) => storageClassFromKube(o),
    ),
    custom_('NodePool', KarpenterResources.nodePools, (o) => nodePoolFromKube(o, { file: `nodepool/${named(o)}` })),
    custom_('EC2NodeClass', KarpenterResources.nodeClasses, (o) => nodeClassFromKube(o, { file: `ec2nodeclass/${named(o)}` })),
    custom_('NodeClaim', KarpenterResources.nodeClaims, (o) => nodeClaimFromKube(o)),
  ]);
  const all = [pods, nodes, daemonSets, pdbs, persistentVolumes, persistentVolumeClaims, storageClasses, nodePools, nodeClasses, nodeClaims];
  const invalid = all.flatMap((r) => r.invalid);
  return {
    pods: pods.ok,
    nodes: nodes.ok,
    daemonSets: daemonSets.ok,
    pdbs: pdbs.ok,
    persistentVolumes: persistentVolumes.ok,
    persistentVolumeClaims: persistentVolumeClaims.ok,
    storageClasses: storageClasses.ok,
    nodePools: nodePools.ok,
    nodeClasses: nodeClasses.ok,
    nodeClaims: nodeClaims.ok,
    ...(invalid.length > 0 ? { invalid } : {}),
  };
}
