/** ClusterClient over the API server's JSON (./apis.ts): reads a snapshot, writes NodeClaims, nodes and evictions idempotently. */
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { NodeClaimNotFoundError } from '../../core/errors';
import { nodeClaimFromKube, nodeClaimToKube, nodeFromKube, podFromKube } from '../../core/model/from-kube';
import type { NodeClaim, NodePool, StatusCondition } from '../../core/model/karpenter';
import { Label } from '../../core/model/labels';
import type { Node, Pod, TopologySpreadConstraint } from '../../core/model/kube';
import { DefaultSpread } from './default-spread';
import type {
  ClusterClient,
  ClusterSnapshot,
  EvictionResult,
  KubeEvent,
  ListedKind,
  NodeClaimRead,
  NodePatch,
  ScopedClusterReads,
  SchedulingConfig,
} from '../../core/ports/cluster-client';
import { KarpenterResources, httpCode, makeApis, tolerate, type KubeApis } from './apis';
import { ACTIVE_PODS, listAll } from './snapshot';
import { SnapshotReader } from './warm-snapshot';
import { systemClock } from '../clock';
import { nodeClaimRead } from './objects';
import {
  mergeClaimStatus,
  mergeNodeClassStatus,
  mergeNodePoolStatus,
  type NodeClaimStatusPatch,
  type NodeClassStatusPatch,
  type NodePoolStatusPatch,
} from './status-patch';
import { canonicalJson } from '../../core/model/hash';
import { EventRecorder } from './events';
import { getNodePool, listNodeClaims, readSchedulingConfig, readVolumes } from './scoped-reads';
import { epochMs, type EpochMs } from '../../core/time';

type Json = Record<string, unknown>;

export interface KubeClusterClientOptions {
  /** Items per list page (default 500, as kubectl). */
  pageSize?: number;
  /** Milliseconds since the epoch, for condition transition times. Default Date.now. */
  now?: () => EpochMs;
  /** Attempts for read-modify-write status patches that hit 409 Conflict (default 5). */
  conflictRetries?: number;
  /** Backoff between retries of 429/5xx/connection errors (default: real time; the composition root passes its clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** kube-scheduler's default topology spread constraints (SCHEDULER_CONFIG): given to the snapshot's pods that have none. */
  defaultSpread?: TopologySpreadConstraint[];
}

export class KubeClusterClient implements ClusterClient, ScopedClusterReads {
  private readonly apis: KubeApis;
  private readonly pageSize: number;
  private readonly now: () => EpochMs;
  private readonly conflictRetries: number;
  private events?: EventRecorder;
  /** Kept for the container's life: later snapshots catch up instead of listing (./warm-snapshot.ts). */
  private readonly reader: SnapshotReader;

  constructor(kc: KubeConfig, opts: KubeClusterClientOptions = {}) {
    this.apis = makeApis(kc, opts.sleep ? { sleep: opts.sleep } : {});
    this.pageSize = opts.pageSize ?? 500;
    this.now = opts.now ?? (() => epochMs(Date.now()));
    this.conflictRetries = opts.conflictRetries ?? 5;
    this.reader = new SnapshotReader(this.apis, {
      kc,
      pageSize: this.pageSize,
      sleep: opts.sleep ?? systemClock.sleep,
      agent: 'nodewright-snapshot',
      ...(opts.defaultSpread?.length ? { spread: new DefaultSpread(this.apis, opts.defaultSpread, this.pageSize) } : {}),
    });
  }

  snapshot(): Promise<ClusterSnapshot> {
    return this.reader.read();
  }

  async getNode(name: string): Promise<Node | undefined> {
    const n = await tolerate(() => this.apis.core.readNode({ name }), [404], undefined);
    return n ? nodeFromKube(n) : undefined;
  }

  async findUnregisteredNode(providerID: string): Promise<Node | undefined> {
    // The API server has no field selector for spec.providerID on nodes: list the unregistered ones and match.
    const labelSelector = `!${Label.registered}`;
    const nodes = await listAll((c, l) => this.apis.core.listNode({ labelSelector, _continue: c, limit: l }), this.pageSize);
    const hit = nodes.find((n) => (n.spec as Json | undefined)?.providerID === providerID);
    return hit ? nodeFromKube(hit) : undefined;
  }

  async listPodsOnNode(nodeName: string): Promise<Pod[]> {
    const fieldSelector = `spec.nodeName=${nodeName},${ACTIVE_PODS}`;
    const pods = await listAll((c, l) => this.apis.core.listPodForAllNamespaces({ fieldSelector, _continue: c, limit: l }), this.pageSize);
    return pods.map((p) => podFromKube(p));
  }

  async getNodeClaim(name: string): Promise<NodeClaim | undefined> {
    const raw = await this.readClaim(name);
    return raw ? nodeClaimFromKube(raw) : undefined;
  }

  async readNodeClaim(name: string): Promise<NodeClaimRead> {
    return nodeClaimRead(await this.readClaim(name));
  }

  listObjects<K extends ListedKind>(kinds: readonly K[]): Promise<Pick<ClusterSnapshot, K | 'invalid'>> {
    return this.reader.readKinds(kinds);
  }

  async createNodeClaim(claim: NodeClaim): Promise<NodeClaim> {
    const body = nodeClaimToKube(claim);
    const meta = body.metadata as Json;
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp']) delete meta[k];
    try {
      const created = await this.apis.custom.createClusterCustomObject({ ...KarpenterResources.nodeClaims, body });
      const s = claim.status;
      if (s.conditions.length > 0 || s.nodeName || s.providerID || s.imageID || s.capacity || s.allocatable) {
        // The status subresource ignores status on create, as the real API server does.
        const { conditions, ...rest } = s;
        await this.patchNodeClaimStatus(claim.name, { ...rest, conditions });
        return (await this.getNodeClaim(claim.name)) ?? nodeClaimFromKube(created);
      }
      return nodeClaimFromKube(created);
    } catch (err) {
      if (httpCode(err) !== 409) throw err;
      const existing = await this.getNodeClaim(claim.name);
      if (!existing) throw err;
      return existing;
    }
  }

  async patchNodeClaimStatus(name: string, status: NodeClaimStatusPatch): Promise<void> {
    const r = await this.patchStatus(KarpenterResources.nodeClaims, name, (current) => mergeClaimStatus(current, status, this.now()), { skipUnchanged: false });
    if (r === 'gone') throw new NodeClaimNotFoundError(`nodeclaim ${name} not found`);
  }

  async recordEvent(event: KubeEvent): Promise<void> {
    this.events ??= new EventRecorder(this.apis.core, this.now);
    await this.events.record(event);
  }

  async patchNodePoolStatus(name: string, status: NodePoolStatusPatch): Promise<boolean> {
    return (
      (await this.patchStatus(KarpenterResources.nodePools, name, (current) => mergeNodePoolStatus(current, status, this.now()), { skipUnchanged: true })) ===
      'written'
    );
  }

  async patchNodeClassStatus(name: string, status: NodeClassStatusPatch): Promise<boolean> {
    return (
      (await this.patchStatus(KarpenterResources.nodeClasses, name, (current) => mergeNodeClassStatus(current, status, this.now()), {
        skipUnchanged: true,
      })) === 'written'
    );
  }

  async patchNodeOverlayStatus(name: string, conditions: StatusCondition[]): Promise<boolean> {
    const merge = (current: Json) => ({ ...current, conditions: mergeClaimStatus(current, { conditions }, this.now()).conditions });
    return (await this.patchStatus(KarpenterResources.nodeOverlays, name, merge, { skipUnchanged: true })) === 'written';
  }

  async patchCapacityBufferStatus(b: { namespace: string; name: string }, status: { replicas?: number; conditions: StatusCondition[] }): Promise<boolean> {
    const r = KarpenterResources.capacityBuffers;
    const raw = await tolerate(() => this.apis.custom.getNamespacedCustomObject({ ...r, ...b }), [404], undefined);
    if (!raw) return false;
    const current = (raw.status ?? {}) as Json;
    const next: Json = {
      ...current,
      ...(status.replicas !== undefined ? { replicas: status.replicas } : {}),
      conditions: mergeClaimStatus(current, { conditions: status.conditions }, this.now()).conditions,
    };
    if (canonicalJson(next) === canonicalJson(current)) return false;
    const body = { metadata: { resourceVersion: (raw.metadata as Json).resourceVersion }, status: next };
    try {
      await this.apis.custom.patchNamespacedCustomObjectStatus({ ...r, ...b, body });
      return true;
    } catch (err) {
      // Gone, or changed since it was read: the next round writes it again.
      if (httpCode(err) === 404 || httpCode(err) === 409) return false;
      throw err;
    }
  }

  /**
   * GET, merge, and merge-PATCH the status subresource with the read resourceVersion (a 409 Conflict is read and
   * merged again). With `skipUnchanged`, a merge that changes nothing is not sent.
   */
  private async patchStatus(
    resource: { group: string; version: string; plural: string },
    name: string,
    merge: (current: Json) => Json,
    opts: { skipUnchanged: boolean },
  ): Promise<'written' | 'unchanged' | 'gone'> {
    for (let attempt = 1; ; attempt++) {
      const raw = await tolerate(() => this.apis.custom.getClusterCustomObject({ ...resource, name }), [404], undefined);
      if (!raw) return 'gone';
      const current = (raw.status ?? {}) as Json;
      const next = merge(current);
      if (opts.skipUnchanged && canonicalJson(next) === canonicalJson(current)) return 'unchanged';
      const body = { metadata: { resourceVersion: (raw.metadata as Json).resourceVersion }, status: next };
      try {
        await this.apis.custom.patchClusterCustomObjectStatus({ ...resource, name, body });
        return 'written';
      } catch (err) {
        const code = httpCode(err);
        if (code === 404) return 'gone';
        if (code !== 409 || attempt >= this.conflictRetries) throw err;
      }
    }
  }

  async patchAnnotations(kind: 'NodePool' | 'EC2NodeClass', name: string, annotations: Record<string, string>): Promise<void> {
    const resource = kind === 'NodePool' ? KarpenterResources.nodePools : KarpenterResources.nodeClasses;
    try {
      await this.apis.custom.patchClusterCustomObject({ ...resource, name, body: { metadata: { annotations } } });
    } catch (err) {
      if (httpCode(err) !== 404) throw err;
    }
  }

  async patchNodeClassFinalizers(name: string, finalizers: string[]): Promise<void> {
    try {
      await this.apis.custom.patchClusterCustomObject({
        ...KarpenterResources.nodeClasses,
        name,
        body: { metadata: { finalizers: finalizers.length > 0 ? finalizers : null } },
      });
    } catch (err) {
      if (httpCode(err) !== 404) throw err;
    }
  }

  async patchNodeClaimMetadata(
    name: string,
    patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null>; finalizers?: string[] },
  ): Promise<void> {
    const metadata: Json = {};
    if (patch.labels) metadata.labels = patch.labels;
    if (patch.annotations) metadata.annotations = patch.annotations;
    if (patch.finalizers) metadata.finalizers = patch.finalizers.length > 0 ? patch.finalizers : null;
    try {
      await this.apis.custom.patchClusterCustomObject({ ...KarpenterResources.nodeClaims, name, body: { metadata } });
    } catch (err) {
      if (httpCode(err) !== 404) throw err;
      // Clearing finalizers of a claim that is already gone is the desired end state (a retried call).
      const onlyClearsFinalizers = !patch.labels && !patch.annotations && patch.finalizers !== undefined && patch.finalizers.length === 0;
      if (!onlyClearsFinalizers) throw new NodeClaimNotFoundError(`nodeclaim ${name} not found`, { cause: err });
    }
  }

  async deleteNodeClaim(name: string): Promise<void> {
    await tolerate(() => this.apis.custom.deleteClusterCustomObject({ ...KarpenterResources.nodeClaims, name }), [404], undefined);
  }

  async patchNode(name: string, patch: NodePatch): Promise<boolean> {
    const metadata: Json = {};
    if (patch.labels) metadata.labels = patch.labels;
    if (patch.annotations) metadata.annotations = patch.annotations;
    if (patch.finalizers) metadata.finalizers = patch.finalizers.length > 0 ? patch.finalizers : null;
    if (patch.ownerReferences) metadata.ownerReferences = patch.ownerReferences.length > 0 ? patch.ownerReferences : null;
    const spec: Json = {};
    if (patch.taints)
      spec.taints =
        patch.taints.length > 0
          ? patch.taints.map((t) => (t.value !== undefined ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect }))
          : null;
    if (patch.unschedulable !== undefined) spec.unschedulable = patch.unschedulable ? true : null;
    const body: Json = {};
    if (Object.keys(metadata).length > 0) body.metadata = metadata;
    if (Object.keys(spec).length > 0) body.spec = spec;
    return tolerate(
      async () => {
        await this.apis.core.patchNode({ name, body });
        return true;
      },
      [404],
      false,
    );
  }

  async nominatePod(pod: { namespace: string; name: string }, nodeName: string): Promise<void> {
    const body = { status: { nominatedNodeName: nodeName } };
    await tolerate(() => this.apis.core.patchNamespacedPodStatus({ namespace: pod.namespace, name: pod.name, body }), [404], undefined);
  }

  async annotatePod(pod: { namespace: string; name: string }, annotations: Record<string, string | null>): Promise<void> {
    const body = { metadata: { annotations } };
    await tolerate(() => this.apis.core.patchNamespacedPod({ namespace: pod.namespace, name: pod.name, body }), [404], undefined);
  }

  async evict(pod: { namespace: string; name: string }): Promise<EvictionResult> {
    try {
      await this.apis.core.createNamespacedPodEviction({
        name: pod.name,
        namespace: pod.namespace,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod.name, namespace: pod.namespace } },
      });
      return 'evicted';
    } catch (err) {
      const code = httpCode(err);
      if (code === 429) return 'blocked';
      if (code === 404 || code === 409) return 'gone';
      // Several PDBs selecting one pod: the API refuses every eviction until someone fixes the budgets.
      if (code === 500 && /more than one PodDisruptionBudget/.test(String((err as { body?: unknown }).body ?? ''))) return 'blocked';
      throw err;
    }
  }

  async deletePod(pod: { namespace: string; name: string }, gracePeriodSeconds: number): Promise<void> {
    await tolerate(() => this.apis.core.deleteNamespacedPod({ name: pod.name, namespace: pod.namespace, gracePeriodSeconds }), [404], undefined);
  }

  async deleteNode(name: string): Promise<void> {
    await tolerate(() => this.apis.core.deleteNode({ name }), [404], undefined);
  }

  getNodePool(name: string): Promise<NodePool | undefined> {
    return getNodePool(this.apis, name);
  }

  listNodeClaims(): Promise<NodeClaim[]> {
    return listNodeClaims(this.apis, this.pageSize);
  }

  schedulingConfig(): Promise<SchedulingConfig> {
    return readSchedulingConfig(this.apis, this.pageSize);
  }

  volumesOf(claims: readonly { namespace: string; name: string }[]): Promise<Pick<ClusterSnapshot, 'persistentVolumeClaims' | 'persistentVolumes'>> {
    return readVolumes(this.apis, claims);
  }

  private async readClaim(name: string): Promise<Json | undefined> {
    return tolerate(() => this.apis.custom.getClusterCustomObject({ ...KarpenterResources.nodeClaims, name }), [404], undefined);
  }
}
