/** In-memory fakes of the ports, recording what the handlers did. */
import type { CloudInstance, CloudProvider, ClusterClient, ClusterSnapshot } from '../../shared/core/ports';
import type { NodeClaim } from '../../shared/core/model/karpenter';
import type { Node } from '../../shared/core/model/kube';
import { InstanceNotOwnedError, NodeClaimNotFoundError } from '../../shared/core/errors';

export const CLUSTER = 'demo';
export const NOW = Date.parse('2026-11-21T23:40:00Z');
export const ownedTags = { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'eks:eks-cluster-name': 'demo' };

export function instance(id: string, opts: Partial<CloudInstance> = {}): CloudInstance {
  return {
    instanceId: id,
    providerID: `aws:///us-west-2a/${id}`,
    instanceType: 'm5.large',
    zone: 'us-west-2a',
    capacityType: 'spot',
    launchTime: NOW - 60 * 60_000,
    state: 'running',
    tags: ownedTags,
    ...opts,
  };
}

export function nodeClaim(name: string, opts: { instanceId?: string; ageMs?: number; registered?: boolean; launched?: boolean; nodeName?: string } = {}): NodeClaim {
  const launched = opts.launched ?? !!opts.instanceId;
  return {
    name,
    labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-west-2a', 'karpenter.sh/capacity-type': 'spot' },
    annotations: {},
    nodePool: 'default',
    spec: { taints: [], startupTaints: [], requirements: [], resources: { requests: {} }, nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, expireAfter: null, terminationGracePeriod: null },
    status: {
      conditions: [
        ...(launched ? [{ type: 'Launched', status: 'True' as const, lastTransitionTime: (NOW - (opts.ageMs ?? 60 * 60_000)) / 1000 }] : []),
        ...(opts.registered ? [{ type: 'Registered', status: 'True' as const }] : []),
      ],
      ...(opts.instanceId ? { providerID: `aws:///us-west-2a/${opts.instanceId}` } : {}),
      ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
    },
    // NodeClaim times are seconds since epoch (the model's convention).
    creationTimestamp: (NOW - (opts.ageMs ?? 60 * 60_000)) / 1000,
    finalizers: ['karpenter.sh/termination'],
  };
}

export function node(name: string, instanceId: string, ready = true): Node {
  return { name, labels: {}, annotations: {}, taints: [], capacity: {}, allocatable: {}, providerID: `aws:///us-west-2a/${instanceId}`, unschedulable: false, ready, creationTimestamp: (NOW - 60 * 60_000) / 1000, finalizers: [] };
}

function unused(name: string): never {
  throw new Error(`fake: ${name} is not expected in this test`);
}

export class FakeCloud implements CloudProvider {
  readonly instances = new Map<string, CloudInstance>();
  readonly deleted: string[] = [];
  listCalls = 0;
  constructor(instances: CloudInstance[] = []) {
    for (const i of instances) this.instances.set(i.instanceId, i);
  }
  private find(providerID: string): CloudInstance {
    const found = [...this.instances.values()].find((i) => i.providerID === providerID);
    if (!found || found.state === 'terminated') throw new NodeClaimNotFoundError(`instance ${providerID} not found`);
    return found;
  }
  async create(): Promise<CloudInstance> {
    return unused('create');
  }
  async delete(providerID: string): Promise<void> {
    const found = this.find(providerID);
    if (found.tags[`kubernetes.io/cluster/${CLUSTER}`] !== 'owned') throw new InstanceNotOwnedError(`instance ${found.instanceId} is not owned by cluster ${CLUSTER}`);
    this.deleted.push(found.instanceId);
    found.state = 'shutting-down';
  }
  async get(providerID: string): Promise<CloudInstance> {
    return { ...this.find(providerID) };
  }
  async list(): Promise<CloudInstance[]> {
    this.listCalls++;
    return [...this.instances.values()].filter((i) => i.state !== 'terminated' && i.tags[`kubernetes.io/cluster/${CLUSTER}`] === 'owned');
  }
  async instanceTypes(): Promise<never> {
    return unused('instanceTypes');
  }
  async isDrifted(): Promise<undefined> {
    return unused('isDrifted');
  }
  async nodeClassStatus(): Promise<never> {
    return unused('nodeClassStatus');
  }
}

export class FakeCluster implements ClusterClient {
  readonly claims = new Map<string, NodeClaim>();
  readonly nodes = new Map<string, Node>();
  readonly deletedClaims: string[] = [];
  readonly deletedNodes: string[] = [];
  snapshotCalls = 0;
  constructor(claims: NodeClaim[] = [], nodes: Node[] = []) {
    for (const c of claims) this.claims.set(c.name, c);
    for (const n of nodes) this.nodes.set(n.name, n);
  }
  async snapshot(): Promise<ClusterSnapshot> {
    this.snapshotCalls++;
    return {
      pods: [], nodes: structuredClone([...this.nodes.values()]), nodeClaims: structuredClone([...this.claims.values()]), nodePools: [], nodeClasses: [],
      pdbs: [], daemonSets: [], persistentVolumes: [], persistentVolumeClaims: [], storageClasses: [],
    };
  }
  async getNode(name: string) {
    return this.nodes.get(name);
  }
  async findNodeByProviderID(providerID: string) {
    return [...this.nodes.values()].find((n) => n.providerID === providerID);
  }
  async listPodsOnNode(): Promise<never> {
    return unused('listPodsOnNode');
  }
  async getNodeClaim(name: string) {
    return this.claims.get(name);
  }
  async createNodeClaim(): Promise<never> {
    return unused('createNodeClaim');
  }
  async patchNodeClaimStatus(): Promise<never> {
    return unused('patchNodeClaimStatus');
  }
  async patchNodePoolStatus(): Promise<boolean> {
    return false;
  }
  async patchNodeClassStatus(): Promise<boolean> {
    return false;
  }
  async recordEvent(): Promise<void> {}
  async patchNodeClaimMetadata(name: string, patch: { finalizers?: string[] }): Promise<void> {
    const claim = this.claims.get(name);
    if (claim && patch.finalizers) claim.finalizers = [...patch.finalizers];
  }
  async deleteNodeClaim(name: string): Promise<void> {
    const claim = this.claims.get(name);
    if (!claim) return;
    if (claim.finalizers.length > 0) {
      claim.deletionTimestamp ??= NOW;
      return;
    }
    this.claims.delete(name);
    this.deletedClaims.push(name);
  }
  async patchNode(): Promise<never> {
    return unused('patchNode');
  }
  async evict(): Promise<never> {
    return unused('evict');
  }
  async deletePod(): Promise<never> {
    return unused('deletePod');
  }
  async deleteNode(name: string): Promise<void> {
    if (this.nodes.delete(name)) this.deletedNodes.push(name);
  }
}




export const fixedClock = { now: () => NOW, sleep: async () => {} };

export { RecordingLogger, RecordingWorkflows as FakeWorkflows, type LogLine } from './recording';
