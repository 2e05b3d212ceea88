/**
 * The one set of in-memory port fakes (ClusterClient, CloudProvider, Clock) every core, handler and
 * state-machine test uses, with the ports' idempotency semantics and logs of what was written. Builders for
 * the objects they hold: ./lifecycle.ts, ./interruption.ts; recording logger, workflows and metrics: ./recording.ts.
 */
import type { ResolvedBuffer } from '../../shared/core/model/capacity-buffer';
import { InsufficientCapacityError, InstanceNotOwnedError, NodeClaimNotFoundError } from '../../shared/core/errors';
import type { InstanceType } from '../../shared/core/instance-types/types';
import type {
  EC2NodeClass,
  EC2NodeClassStatus,
  NodeClaim,
  NodeClaimCondition,
  NodeOverlay,
  NodePool,
  NodePoolStatus,
  StatusCondition,
} from '../../shared/core/model/karpenter';
import type { DaemonSet, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../shared/core/model/kube';
import type {
  Clock,
  CloudInstance,
  CloudProvider,
  ClusterClient,
  ClusterSnapshot,
  EvictionResult,
  KubeEvent,
  LaunchRequest,
  ListedKind,
  NodeClaimRead,
  NodePatch,
  ScopedClusterReads,
  SchedulingConfig,
} from '../../shared/core/ports';
import { epochMs, type EpochMs } from '../../shared/core/time';

export class FakeClock implements Clock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  now(): EpochMs {
    return epochMs(this.ms);
  }
  async sleep(ms: number): Promise<void> {
    this.ms += ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const clone = <T>(v: T): T => structuredClone(v);

/** In-memory ClusterClient with the port's idempotency semantics and a write log. */
export class FakeCluster implements ClusterClient, ScopedClusterReads {
  nodes = new Map<string, Node>();
  claims = new Map<string, NodeClaim>();
  pods: Pod[] = [];
  nodePools: NodePool[] = [];
  nodeClasses: EC2NodeClass[] = [];
  nodeOverlays: NodeOverlay[] = [];
  capacityBuffers: ResolvedBuffer[] = [];
  daemonSets: DaemonSet[] = [];
  persistentVolumes: PersistentVolume[] = [];
  persistentVolumeClaims: PersistentVolumeClaim[] = [];
  storageClasses: StorageClass[] = [];
  /** Returned by evict() for a pod key, otherwise 'evicted' (and the pod disappears). */
  evictionResults = new Map<string, EvictionResult[]>();
  writes: string[] = [];
  /** Claims and nodes gone for good (deleted with no finalizer left), in order. */
  readonly deletedClaims: string[] = [];
  readonly deletedNodes: string[] = [];
  snapshotCalls = 0;
  /** Kinds each listObjects call read, in order. */
  readonly listed: string[][] = [];
  /** NodeClaims stored but not readable by this version (name → what failed to parse): listed as invalid, readNodeClaim says so. */
  unreadableClaims = new Map<string, string>();

  constructor(claims: NodeClaim[] = [], nodes: Node[] = []) {
    for (const c of claims) this.claims.set(c.name, c);
    for (const n of nodes) this.nodes.set(n.name, n);
  }

  async snapshot(): Promise<ClusterSnapshot> {
    this.snapshotCalls++;
    return clone({
      pods: this.pods,
      nodes: [...this.nodes.values()],
      nodeClaims: [...this.claims.values()],
      nodePools: this.nodePools,
      nodeClasses: this.nodeClasses,
      pdbs: [],
      daemonSets: this.daemonSets,
      persistentVolumes: this.persistentVolumes,
      persistentVolumeClaims: this.persistentVolumeClaims,
      storageClasses: this.storageClasses,
      ...(this.nodeOverlays.length ? { nodeOverlays: this.nodeOverlays } : {}),
      ...(this.capacityBuffers.length ? { capacityBuffers: this.capacityBuffers } : {}),
      ...(this.unreadableClaims.size ? { invalid: [...this.unreadableClaims].map(([name, reason]) => ({ kind: 'NodeClaim', name, reason })) } : {}),
    });
  }
  async getNodePool(name: string) {
    return clone(this.nodePools.find((p) => p.name === name));
  }
  async listNodeClaims() {
    return clone([...this.claims.values()]);
  }
  async schedulingConfig(): Promise<SchedulingConfig> {
    return clone({
      nodePools: this.nodePools,
      nodeClasses: this.nodeClasses,
      daemonSets: this.daemonSets,
      storageClasses: this.storageClasses,
      nodeOverlays: this.nodeOverlays,
    });
  }
  async volumesOf(claims: readonly { namespace: string; name: string }[]) {
    const pvcs = this.persistentVolumeClaims.filter((c) => claims.some((k) => k.namespace === c.namespace && k.name === c.name));
    const pvs = this.persistentVolumes.filter((v) => pvcs.some((c) => c.volumeName === v.name));
    return clone({ persistentVolumeClaims: pvcs, persistentVolumes: pvs });
  }
  async getNode(name: string) {
    return clone(this.nodes.get(name));
  }
  async listObjects<K extends ListedKind>(kinds: readonly K[]): Promise<Pick<ClusterSnapshot, K | 'invalid'>> {
    this.listed.push([...kinds]);
    const all = {
      nodes: [...this.nodes.values()],
      nodeClaims: [...this.claims.values()],
      nodePools: this.nodePools,
      nodeClasses: this.nodeClasses,
      nodeOverlays: this.nodeOverlays,
    };
    const invalid = kinds.includes('nodeClaims' as K) ? [...this.unreadableClaims].map(([name, reason]) => ({ kind: 'NodeClaim', name, reason })) : [];
    return clone({ ...Object.fromEntries(kinds.map((k) => [k, all[k]])), ...(invalid.length ? { invalid } : {}) }) as Pick<ClusterSnapshot, K | 'invalid'>;
  }
  async readNodeClaim(name: string): Promise<NodeClaimRead> {
    const reason = this.unreadableClaims.get(name);
    if (reason !== undefined) return { found: true, unreadable: reason };
    const claim = this.claims.get(name);
    return claim ? { found: true, claim: clone(claim) } : { found: false };
  }
  async findUnregisteredNode(providerID: string) {
    return clone([...this.nodes.values()].find((n) => n.providerID === providerID && n.labels['karpenter.sh/registered'] === undefined));
  }
  async listPodsOnNode(nodeName: string) {
    return clone(this.pods.filter((p) => p.nodeName === nodeName));
  }
  async getNodeClaim(name: string) {
    const reason = this.unreadableClaims.get(name);
    if (reason !== undefined) throw new Error(`nodeclaim/${name}: ${reason}`);
    return clone(this.claims.get(name));
  }
  async createNodeClaim(claim: NodeClaim) {
    this.writes.push(`createNodeClaim ${claim.name}`);
    if (!this.claims.has(claim.name)) this.claims.set(claim.name, clone(claim));
    return clone(this.claims.get(claim.name) as NodeClaim);
  }
  async patchNodeClaimStatus(name: string, status: Partial<Omit<NodeClaim['status'], 'conditions'>> & { conditions?: NodeClaimCondition[] }) {
    this.writes.push(`patchNodeClaimStatus ${name}`);
    const c = this.claims.get(name);
    if (!c) throw new NodeClaimNotFoundError(`nodeclaim ${name} not found`);
    const { conditions, ...rest } = status;
    Object.assign(c.status, rest);
    for (const cond of conditions ?? []) c.status.conditions = [...c.status.conditions.filter((x) => x.type !== cond.type), cond];
  }
  /** NodePool status writes, kept apart from `writes` (they happen every provisioner round that changes counts). */
  nodePoolStatusWrites: string[] = [];
  async patchNodePoolStatus(name: string, status: Partial<NodePoolStatus> & { conditions: NodePoolStatus['conditions'] }) {
    const pool = this.nodePools.find((p) => p.name === name);
    if (!pool) return false;
    this.nodePoolStatusWrites.push(name);
    pool.observedStatus = {
      resources: status.resources ?? pool.observedStatus?.resources ?? {},
      nodes: status.nodes ?? pool.observedStatus?.nodes ?? 0,
      conditions: status.conditions,
    };
    pool.ready = status.conditions.find((c) => c.type === 'Ready')?.status === 'True';
    return true;
  }
  /** Events recorded, as `<kind>/<name> <reason>: <message>`. */
  events: string[] = [];
  async recordEvent(e: KubeEvent) {
    this.events.push(`${e.object.kind}/${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name} ${e.reason}: ${e.message}`);
  }
  nodeClassStatusWrites: string[] = [];
  async patchNodeClassStatus(name: string, status: Partial<EC2NodeClassStatus> & { conditions: EC2NodeClassStatus['conditions'] }) {
    const nc = this.nodeClasses.find((c) => c.name === name);
    if (!nc) return false;
    const { conditions, ...resolved } = status;
    const ready = conditions.find((c) => c.type === 'Ready');
    const next = {
      ...nc,
      status: { ...nc.status, ...resolved },
      ...(ready ? { ready: { status: ready.status, reason: ready.reason, message: ready.message } } : {}),
    };
    if (JSON.stringify(next) === JSON.stringify(nc)) return false;
    this.nodeClassStatusWrites.push(name);
    Object.assign(nc, next);
    return true;
  }
  /** CapacityBuffer statuses written, by `<namespace>/<name>`. */
  bufferStatuses = new Map<string, { replicas?: number; conditions: StatusCondition[] }>();
  async patchCapacityBufferStatus(b: { namespace: string; name: string }, status: { replicas?: number; conditions: StatusCondition[] }) {
    const key = `${b.namespace}/${b.name}`;
    if (JSON.stringify(this.bufferStatuses.get(key)) === JSON.stringify(status)) return false;
    this.bufferStatuses.set(key, status);
    return true;
  }
  async patchNodeOverlayStatus(name: string, conditions: StatusCondition[]) {
    const o = this.nodeOverlays.find((x) => x.name === name);
    if (!o) return false;
    const next = [...(o.observedConditions ?? []).filter((c) => !conditions.some((n) => n.type === c.type)), ...conditions];
    if (JSON.stringify(next) === JSON.stringify(o.observedConditions ?? [])) return false;
    o.observedConditions = next;
    return true;
  }
  async patchAnnotations(kind: 'NodePool' | 'EC2NodeClass', name: string, annotations: Record<string, string>) {
    this.writes.push(`patchAnnotations ${kind}/${name}`);
    const o = kind === 'NodePool' ? this.nodePools.find((p) => p.name === name) : this.nodeClasses.find((c) => c.name === name);
    if (!o) return;
    const hashKey = kind === 'NodePool' ? 'karpenter.sh/nodepool-hash' : 'karpenter.k8s.aws/ec2nodeclass-hash';
    o.recordedHash = { hash: annotations[hashKey] ?? o.recordedHash?.hash, version: annotations[`${hashKey}-version`] ?? o.recordedHash?.version };
  }

  async patchNodeClassFinalizers(name: string, finalizers: string[]) {
    this.writes.push(`patchNodeClassFinalizers ${name}`);
    const nc = this.nodeClasses.find((c) => c.name === name);
    if (!nc) return;
    if (finalizers.length) nc.finalizers = [...finalizers];
    else delete nc.finalizers;
    if (nc.deleting && !finalizers.length) this.nodeClasses.splice(this.nodeClasses.indexOf(nc), 1);
  }

  async patchNodeClaimMetadata(
    name: string,
    patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null>; finalizers?: string[] },
  ) {
    this.writes.push(`patchNodeClaimMetadata ${name}`);
    const c = this.claims.get(name);
    if (!c) throw new NodeClaimNotFoundError(`nodeclaim ${name} not found`);
    for (const [k, v] of Object.entries(patch.labels ?? {})) {
      if (v === null) delete c.labels[k];
      else c.labels[k] = v;
    }
    for (const [k, v] of Object.entries(patch.annotations ?? {})) {
      if (v === null) delete c.annotations[k];
      else c.annotations[k] = v;
    }
    if (patch.finalizers) {
      if (c.deletionTimestamp !== undefined && patch.finalizers.some((f) => !c.finalizers.includes(f)))
        throw new Error(`nodeclaim ${name} is being deleted: no new finalizers`);
      c.finalizers = [...patch.finalizers];
      if (c.deletionTimestamp !== undefined && c.finalizers.length === 0) this.removeClaim(name);
    }
  }
  /** As the API server: an object with finalizers is only marked (deletionTimestamp), and goes when the last one is removed. */
  async deleteNodeClaim(name: string) {
    this.writes.push(`deleteNodeClaim ${name}`);
    const c = this.claims.get(name);
    if (c?.finalizers.length) c.deletionTimestamp ??= this.deletionTime();
    else if (c) this.removeClaim(name);
  }
  private removeClaim(name: string) {
    this.claims.delete(name);
    this.deletedClaims.push(name);
  }
  private removeNode(name: string) {
    this.nodes.delete(name);
    this.deletedNodes.push(name);
  }
  /** The deletionTimestamp the fake API server stamps; tests may set it. */
  deletionTime = (): EpochMs => epochMs(Date.UTC(2026, 0, 1));
  async patchNode(name: string, patch: NodePatch) {
    this.writes.push(`patchNode ${name}`);
    const n = this.nodes.get(name);
    if (!n) return false;
    for (const [k, v] of Object.entries(patch.labels ?? {})) {
      if (v === null) delete n.labels[k];
      else n.labels[k] = v;
    }
    for (const [k, v] of Object.entries(patch.annotations ?? {})) {
      if (v === null) delete n.annotations[k];
      else n.annotations[k] = v;
    }
    if (patch.taints) n.taints = clone(patch.taints);
    if (patch.unschedulable !== undefined) n.unschedulable = patch.unschedulable;
    if (patch.ownerReferences) n.ownerReferences = clone(patch.ownerReferences);
    if (patch.finalizers) {
      if (n.deletionTimestamp !== undefined && patch.finalizers.some((f) => !n.finalizers.includes(f)))
        throw new Error(`node ${name} is being deleted: no new finalizers`);
      n.finalizers = [...patch.finalizers];
      if (n.deletionTimestamp !== undefined && n.finalizers.length === 0) this.removeNode(name);
    }
    return true;
  }
  async nominatePod(pod: { namespace: string; name: string }, nodeName: string): Promise<void> {
    this.writes.push(`nominatePod ${pod.namespace}/${pod.name} ${nodeName}`);
    this.pods = this.pods.map((p) => (p.namespace === pod.namespace && p.name === pod.name ? { ...p, nominatedNodeName: nodeName } : p));
  }
  async annotatePod(pod: { namespace: string; name: string }, annotations: Record<string, string | null>): Promise<void> {
    this.writes.push(`annotatePod ${pod.namespace}/${pod.name} ${JSON.stringify(annotations)}`);
    this.pods = this.pods.map((p) => {
      if (p.namespace !== pod.namespace || p.name !== pod.name) return p;
      const next = { ...p.annotations };
      for (const [k, v] of Object.entries(annotations)) {
        if (v === null) delete next[k];
        else next[k] = v;
      }
      return { ...p, annotations: next };
    });
  }
  async evict(pod: { namespace: string; name: string }): Promise<EvictionResult> {
    const key = `${pod.namespace}/${pod.name}`;
    this.writes.push(`evict ${key}`);
    const queued = this.evictionResults.get(key);
    const result = queued?.length ? (queued.shift() as EvictionResult) : 'evicted';
    if (result !== 'blocked') this.pods = this.pods.filter((p) => `${p.namespace}/${p.name}` !== key);
    return result;
  }
  async deletePod(pod: { namespace: string; name: string }, gracePeriodSeconds: number) {
    this.writes.push(`deletePod ${pod.namespace}/${pod.name} ${gracePeriodSeconds}`);
    this.pods = this.pods.filter((p) => p.namespace !== pod.namespace || p.name !== pod.name);
  }
  async deleteNode(name: string) {
    this.writes.push(`deleteNode ${name}`);
    const n = this.nodes.get(name);
    if (n?.finalizers.length) n.deletionTimestamp ??= this.deletionTime();
    else if (n) this.removeNode(name);
  }
}

/**
 * CloudProvider fake: launches into `instances` (by providerID), can be told to throw ICE once. An instance is
 * not owned — delete refuses it, list leaves it out — when tagged `foreign`, or, once `clusterName` is set,
 * when it lacks `kubernetes.io/cluster/<clusterName>: owned`.
 */
export class FakeCloud implements CloudProvider {
  instances = new Map<string, CloudInstance>();
  types: InstanceType[] = [instanceType('m5.large', 0.096), instanceType('c5.large', 0.085)];
  iceOnce = false;
  calls: string[] = [];
  /** Instance ids terminated, in order. */
  readonly deleted: string[] = [];
  listCalls = 0;
  private seq = 0;

  constructor(
    instances: CloudInstance[] = [],
    readonly clusterName?: string,
  ) {
    for (const i of instances) this.instances.set(i.providerID, i);
  }

  /** The instance with this id (tests change its state or tags). */
  byId(instanceId: string): CloudInstance | undefined {
    return [...this.instances.values()].find((i) => i.instanceId === instanceId);
  }

  private owned(inst: CloudInstance): boolean {
    if (inst.tags.foreign) return false;
    return this.clusterName === undefined || inst.tags[`kubernetes.io/cluster/${this.clusterName}`] === 'owned';
  }
  private find(providerID: string): CloudInstance {
    const inst = this.instances.get(providerID);
    if (!inst) throw new NodeClaimNotFoundError(`instance ${providerID} not found`);
    if (inst.state === 'terminated') throw new NodeClaimNotFoundError(`instance ${providerID} is terminated`, { terminated: true });
    return inst;
  }

  async create(req: LaunchRequest): Promise<CloudInstance> {
    this.calls.push(`create ${req.nodeClaim.name}`);
    if (this.iceOnce) {
      this.iceOnce = false;
      throw new InsufficientCapacityError('InsufficientInstanceCapacity', [
        { instanceType: req.instanceTypes[0].name, zone: 'eu-west-1a', capacityType: 'spot' },
      ]);
    }
    const id = `i-0abc${String(++this.seq).padStart(12, '0')}`;
    const it = req.instanceTypes[0];
    const inst: CloudInstance = {
      instanceId: id,
      providerID: `aws:///eu-west-1a/${id}`,
      instanceType: it.name,
      zone: 'eu-west-1a',
      capacityType: 'spot',
      launchTime: epochMs(0),
      state: 'running',
      tags: {},
    };
    this.instances.set(inst.providerID, inst);
    return inst;
  }
  async delete(providerID: string) {
    this.calls.push(`delete ${providerID}`);
    const inst = this.find(providerID);
    if (!this.owned(inst))
      throw new InstanceNotOwnedError(`instance ${inst.instanceId} is not owned${this.clusterName ? ` by cluster ${this.clusterName}` : ''}`);
    this.deleted.push(inst.instanceId);
    inst.state = 'shutting-down';
  }
  async get(providerID: string) {
    return { ...this.find(providerID) };
  }
  async stop(providerID: string) {
    this.calls.push(`stop ${providerID}`);
    const inst = this.find(providerID);
    if (!this.owned(inst)) throw new InstanceNotOwnedError(`instance ${inst.instanceId} is not owned`);
    inst.state = 'stopped';
  }
  async start(providerID: string) {
    this.calls.push(`start ${providerID}`);
    const inst = this.find(providerID);
    if (!this.owned(inst)) throw new InstanceNotOwnedError(`instance ${inst.instanceId} is not owned`);
    inst.state = 'running';
  }
  /** Instance ids rebooted, in order. */
  readonly rebooted: string[] = [];
  async reboot(providerID: string) {
    this.calls.push(`reboot ${providerID}`);
    const inst = this.find(providerID);
    if (!this.owned(inst)) throw new InstanceNotOwnedError(`instance ${inst.instanceId} is not owned`);
    this.rebooted.push(inst.instanceId);
  }
  async tagInstance(providerID: string, tags: Record<string, string>) {
    this.calls.push(`tag ${providerID}`);
    const inst = this.find(providerID);
    if (!this.owned(inst)) throw new InstanceNotOwnedError(`instance ${inst.instanceId} is not owned`);
    inst.tags = { ...tags, ...inst.tags };
  }
  async list() {
    this.listCalls++;
    return [...this.instances.values()].filter((i) => i.state !== 'terminated' && this.owned(i));
  }
  /** The queries describeOwned was asked, in order. */
  readonly describeCalls: ({ instanceIds: readonly string[] } | { nodeClaim: string })[] = [];
  async describeOwned(query: { instanceIds: readonly string[] } | { nodeClaim: string }) {
    this.describeCalls.push(query);
    const owned = [...this.instances.values()].filter((i) => this.owned(i) && 'karpenter.sh/nodepool' in i.tags);
    if ('nodeClaim' in query) return owned.filter((i) => i.state !== 'terminated' && i.tags['karpenter.sh/nodeclaim'] === query.nodeClaim).map(clone);
    return owned.filter((i) => query.instanceIds.includes(i.instanceId)).map(clone);
  }
  async instanceTypes() {
    return clone(this.types);
  }
  async isDrifted() {
    return undefined;
  }
  /** What nodeClassStatus answers (every selector matched, the profile exists). */
  nodeClassReport: EC2NodeClassStatus = {
    subnets: [{ id: 'subnet-a', zone: 'us-east-1a' }],
    securityGroups: [{ id: 'sg-1' }],
    amis: [{ id: 'ami-1' }],
    instanceProfile: 'profile',
    conditions: ['SubnetsReady', 'SecurityGroupsReady', 'AMIsReady', 'InstanceProfileReady'].map((type) => ({
      type,
      status: 'True' as const,
      reason: type,
      message: '',
    })),
  };
  async nodeClassStatus(): Promise<EC2NodeClassStatus> {
    return structuredClone(this.nodeClassReport);
  }
}

/** A small on-demand + spot instance type (2 vCPU, 8 GiB) priced `price` $/h spot, 3× on demand. */
export function instanceType(name: string, price: number): InstanceType {
  return {
    name,
    arch: 'amd64',
    os: 'linux',
    labels: { 'node.kubernetes.io/instance-type': name },
    capacity: { cpu: 2000, memory: 8 * 1024 ** 3, pods: 29 },
    allocatable: { cpu: 1930, memory: 7 * 1024 ** 3, pods: 29 },
    overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    offerings: [
      { zone: 'eu-west-1a', capacityType: 'spot', price, available: true },
      { zone: 'eu-west-1a', capacityType: 'on-demand', price: price * 3, available: true },
    ],
    exotic: false,
  };
}
