/**
 * The snapshot a container keeps warm between invocations. Each kind is listed (paged, each page mapped into the
 * core's compact model as it arrives) and kept with the list's resourceVersion. A later read of a large kind does not
 * list it again: it catches up with a one-second WATCH from where the copy stands (./catch-up.ts) and applies the
 * changes — what an informer does continuously, done at the moment a function needs the state. So at 50,000 pods a
 * provisioner round reads the pods that changed since its last round instead of ~300 MB of JSON (seconds of CPU at a
 * Lambda's share), and a burst's later rounds are as cheap as its changes.
 *
 * A kind smaller than CATCH_UP_FROM objects is listed every time: its LIST is cheaper than the catch-up's second.
 * Anything unexpected (410 Gone because the API server's history no longer reaches back, an error, a stream that does
 * not end) lists the kind again, and a change of PriorityClasses lists pods and DaemonSets again (their priority is
 * mapped from them). A container Lambda reclaims takes its copy with it; the next one lists.
 */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { KEPT_WARM_FROM, type ClusterSnapshot } from '../../core/ports/cluster-client';

type SnapshotKind = keyof Omit<ClusterSnapshot, 'invalid' | 'namespaces' | 'capacityBuffers'>;
import {
  daemonSetFromKube,
  namespaceFromKube,
  nodeClaimFromKube,
  nodeClassFromKube,
  nodeFromKube,
  nodeOverlayFromKube,
  nodePoolFromKube,
  pdbFromKube,
  podFromKube,
  pvcFromKube,
  pvFromKube,
  storageClassFromKube,
} from '../../core/model/from-kube';
import { httpCode, KarpenterResources, type KubeApis } from './apis';
import { catchUp, type ChangeType } from './catch-up';
import { readCapacityBuffers } from './buffers';
import type { DefaultSpread } from './default-spread';
import { ACTIVE_PODS, listAll } from './snapshot';
import { selectsNamespacesByLabel } from '../../core/scheduling/namespaces';
import type { Sleep } from './timeout';

type Json = Record<string, unknown>;
type Page = { items: Json[]; metadata?: unknown };
type Invalid = { kind: string; name: string; reason: string };

/** Objects of a kind from which a read catches up rather than lists (a LIST of this many takes longer than the catch-up). */
export const CATCH_UP_FROM = KEPT_WARM_FROM;
/** How long a catch-up watch stays open: the API server sends the backlog at once, then ends the stream. */
const WINDOW_SECONDS = 1;

interface KindDef<T> {
  kind: string;
  path: string;
  fieldSelector?: string;
  page: (cont: string | undefined, limit: number) => Promise<Page>;
  map: (o: Json) => T;
}

interface ReadContext {
  kc: KubeConfig;
  pageSize: number;
  sleep: Sleep;
  agent: string;
  /** SCHEDULER_CONFIG's default topology spread, given to the pods that declare none. */
  spread?: DefaultSpread;
}

const metaOf = (o: Json) => (o.metadata ?? {}) as { name?: string; namespace?: string; resourceVersion?: string; continue?: string };
/** The API server's order (etcd keys): namespace/name. */
const keyOf = (o: Json) => {
  const m = metaOf(o);
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
};

/** One kind's copy: mapped objects and the unreadable ones by key, at `resourceVersion`. */
class Collection<T> {
  private items = new Map<string, T>();
  private invalid = new Map<string, Invalid>();
  private resourceVersion: string | undefined;
  private sorted = true;

  constructor(private readonly def: KindDef<T>) {}

  /** The next read lists. */
  forget(): void {
    this.resourceVersion = undefined;
  }

  async read(ctx: ReadContext): Promise<{ ok: T[]; invalid: Invalid[] }> {
    if (this.resourceVersion !== undefined && this.items.size + this.invalid.size >= CATCH_UP_FROM) {
      const { path, fieldSelector } = this.def;
      const request = {
        path,
        resourceVersion: this.resourceVersion,
        windowSeconds: WINDOW_SECONDS,
        agent: ctx.agent,
        ...(fieldSelector ? { fieldSelector } : {}),
      };
      const r = await catchUp(ctx.kc, request, ctx.sleep, (type, o) => this.apply(type, o));
      if (r.ok) this.resourceVersion = r.resourceVersion;
      else await this.list(ctx);
    } else {
      await this.list(ctx);
    }
    return this.values();
  }

  private async list(ctx: ReadContext): Promise<void> {
    this.items = new Map();
    this.invalid = new Map();
    this.resourceVersion = undefined;
    let listedAt: string | undefined;
    let cont: string | undefined;
    do {
      const page = await this.def.page(cont, ctx.pageSize);
      // Every page of a paged LIST is served at the first page's resourceVersion.
      listedAt ??= metaOf(page as Json).resourceVersion || undefined;
      for (const o of page.items ?? []) this.apply('ADDED', o);
      cont = metaOf(page as Json).continue || undefined;
    } while (cont);
    this.sorted = true;
    this.resourceVersion = listedAt;
  }

  private apply(type: ChangeType, o: Json): void {
    const key = keyOf(o);
    if (type === 'DELETED') {
      this.items.delete(key);
      this.invalid.delete(key);
      return;
    }
    if (!this.items.has(key) && !this.invalid.has(key)) this.sorted = false;
    try {
      this.items.set(key, this.def.map(o));
      this.invalid.delete(key);
    } catch (err) {
      this.items.delete(key);
      this.invalid.set(key, { kind: this.def.kind, name: key, reason: err instanceof Error ? err.message : String(err) });
    }
  }

  /** In the API server's order, as a LIST would give them, so a caught-up read plans exactly as a listed one. */
  private values(): { ok: T[]; invalid: Invalid[] } {
    if (!this.sorted) {
      this.items = new Map([...this.items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      this.invalid = new Map([...this.invalid].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      this.sorted = true;
    }
    return { ok: [...this.items.values()], invalid: [...this.invalid.values()] };
  }
}

const named = (o: Json) => String(metaOf(o).name ?? '');

export class SnapshotReader {
  private priority: { classes: Record<string, number>; defaultPriority: number | undefined; key: string } = {
    classes: {},
    defaultPriority: undefined,
    key: '',
  };
  private readonly kinds;

  constructor(
    private readonly apis: KubeApis,
    private readonly ctx: ReadContext,
  ) {
    const { core, apps, policy, storage, custom } = apis;
    const podContext = () => ({ priorityClasses: this.priority.classes, defaultPriority: this.priority.defaultPriority });
    const crd = <T>(kind: string, r: { group: string; version: string; plural: string }, map: (o: Json) => T) =>
      new Collection({
        kind,
        path: `/apis/${r.group}/${r.version}/${r.plural}`,
        page: (c, l) => custom.listClusterCustomObject({ ...r, _continue: c, limit: l }),
        map,
      });
    this.kinds = {
      pods: new Collection({
        kind: 'Pod',
        path: '/api/v1/pods',
        fieldSelector: ACTIVE_PODS,
        page: (c, l) => core.listPodForAllNamespaces({ fieldSelector: ACTIVE_PODS, _continue: c, limit: l }),
        map: (o) => podFromKube(o, podContext()),
      }),
      nodes: new Collection({ kind: 'Node', path: '/api/v1/nodes', page: (c, l) => core.listNode({ _continue: c, limit: l }), map: (o) => nodeFromKube(o) }),
      daemonSets: new Collection({
        kind: 'DaemonSet',
        path: '/apis/apps/v1/daemonsets',
        page: (c, l) => apps.listDaemonSetForAllNamespaces({ _continue: c, limit: l }),
        map: (o) => daemonSetFromKube(o, podContext()),
      }),
      pdbs: new Collection({
        kind: 'PodDisruptionBudget',
        path: '/apis/policy/v1/poddisruptionbudgets',
        page: (c, l) => policy.listPodDisruptionBudgetForAllNamespaces({ _continue: c, limit: l }),
        map: (o) => pdbFromKube(o),
      }),
      persistentVolumes: new Collection({
        kind: 'PersistentVolume',
        path: '/api/v1/persistentvolumes',
        page: (c, l) => core.listPersistentVolume({ _continue: c, limit: l }),
        map: (o) => pvFromKube(o),
      }),
      persistentVolumeClaims: new Collection({
        kind: 'PersistentVolumeClaim',
        path: '/api/v1/persistentvolumeclaims',
        page: (c, l) => core.listPersistentVolumeClaimForAllNamespaces({ _continue: c, limit: l }),
        map: (o) => pvcFromKube(o),
      }),
      storageClasses: new Collection({
        kind: 'StorageClass',
        path: '/apis/storage.k8s.io/v1/storageclasses',
        page: (c, l) => storage.listStorageClass({ _continue: c, limit: l }),
        map: (o) => storageClassFromKube(o),
      }),
      nodePools: crd('NodePool', KarpenterResources.nodePools, (o) => nodePoolFromKube(o, { file: `nodepool/${named(o)}` })),
      nodeClasses: crd('EC2NodeClass', KarpenterResources.nodeClasses, (o) => nodeClassFromKube(o, { file: `ec2nodeclass/${named(o)}` })),
      nodeClaims: crd('NodeClaim', KarpenterResources.nodeClaims, (o) => nodeClaimFromKube(o)),
      // NodeOverlays are optional: without their CRD (404) there are none.
      nodeOverlays: new Collection({
        kind: 'NodeOverlay',
        path: `/apis/karpenter.sh/v1alpha1/nodeoverlays`,
        page: (c, l) =>
          custom.listClusterCustomObject({ ...KarpenterResources.nodeOverlays, _continue: c, limit: l }).catch((e: unknown) => {
            if (httpCode(e) === 404) return { items: [] };
            throw e;
          }),
        map: (o) => nodeOverlayFromKube(o, { file: `nodeoverlay/${named(o)}` }),
      }),
    };
  }

  /** Only these kinds (garbage collection, launches: no pods), from the same warm copies. */
  async readKinds<K extends SnapshotKind>(kinds: readonly K[]): Promise<Pick<ClusterSnapshot, K | 'invalid'>> {
    const unique = [...new Set(kinds)];
    const results = await Promise.all(unique.map((k) => (this.kinds[k] as Collection<unknown>).read(this.ctx)));
    const invalid = results.flatMap((r) => r.invalid);
    return {
      ...Object.fromEntries(unique.map((k, i) => [k, results[i].ok])),
      ...(invalid.length > 0 ? { invalid } : {}),
    } as Pick<ClusterSnapshot, K | 'invalid'>;
  }

  /** PriorityClasses first (a pod's priority needs them; always listed: a handful); then every kind in parallel. */
  async read(): Promise<ClusterSnapshot> {
    const priorityClasses = await listAll((c, l) => this.apis.scheduling.listPriorityClass({ _continue: c, limit: l }), this.ctx.pageSize);
    const classes: Record<string, number> = {};
    let defaultPriority: number | undefined;
    for (const pc of priorityClasses) {
      classes[named(pc)] = Number(pc.value ?? 0);
      if (pc.globalDefault === true) defaultPriority = Number(pc.value ?? 0);
    }
    const key = JSON.stringify([classes, defaultPriority ?? null]);
    if (key !== this.priority.key) {
      this.kinds.pods.forget();
      this.kinds.daemonSets.forget();
    }
    this.priority = { classes, defaultPriority, key };
    const [listed, capacityBuffers] = await Promise.all([this.readKinds(ALL_KINDS), readCapacityBuffers(this.apis, this.ctx.pageSize)]);
    const snapshot = capacityBuffers.length ? { ...listed, capacityBuffers } : listed;
    if (this.ctx.spread) snapshot.pods = await this.ctx.spread.apply(snapshot.pods);
    // Namespaces only when an affinity term selects them by label (a handful of objects, listed then).
    if (!snapshot.pods.some(selectsNamespacesByLabel)) return snapshot;
    const namespaces = await listAll((c, l) => this.apis.core.listNamespace({ _continue: c, limit: l }), this.ctx.pageSize);
    return { ...snapshot, namespaces: namespaces.map((o) => namespaceFromKube(o)) };
  }
}

/** Every kind of the snapshot, in the order its unreadable objects are reported. */
const ALL_KINDS: readonly SnapshotKind[] = [
  'pods',
  'nodes',
  'daemonSets',
  'pdbs',
  'persistentVolumes',
  'persistentVolumeClaims',
  'storageClasses',
  'nodePools',
  'nodeClasses',
  'nodeClaims',
  'nodeOverlays',
];
