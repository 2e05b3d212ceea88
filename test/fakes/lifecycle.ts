/** Builders and the port-fakes bundle for the lifecycle, handler and state-machine tests (fakes: ./ports.ts). */
import type { LifecycleDeps, Planner } from '../../shared/core/lifecycle';
import type { EC2NodeClass, NodeClaim, NodeClaimCondition, NodePool } from '../../shared/core/model/karpenter';
import type { Node, Pod } from '../../shared/core/model/kube';
import { MemoryStateStore } from '../../shared/adapters/aws/state-store/memory';
import { FakeClock, FakeCloud, FakeCluster } from './ports';
import { RecordingLogger, RecordingMetrics, RecordingWorkflows } from './recording';
import { epochMs, wholeSecond, type EpochMs } from '../../shared/core/time';
import type { PlannedNodeClaim } from '../../shared/core/scheduling/types';
import { instanceType } from './ports';

/** When the fakes' objects were created: 2026-01-01T00:00:00Z. */
const CREATED = epochMs(Date.UTC(2026, 0, 1));

export { FakeClock, FakeCloud, FakeCluster, instanceType } from './ports';

export function nodePool(name = 'default', over: Partial<NodePool> = {}): NodePool {
  return {
    name,
    weight: 0,
    template: {
      labels: {},
      annotations: {},
      taints: [],
      startupTaints: [],
      requirements: [],
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: 720 * 3600,
      terminationGracePeriod: null,
    },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 0, budgets: [{ nodes: '10%' }] },
    limits: {},
    ...over,
  };
}

export function nodeClass(name = 'default'): EC2NodeClass {
  return {
    name,
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    role: 'KarpenterNodeRole-demo',
    tags: {},
    blockDeviceMappings: [],
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    // As garbage collection leaves it once it has resolved the class (a class without a Ready is not ready).
    ready: { status: 'True', reason: 'Ready', message: '' },
  };
}

export function nodeClaim(
  name: string,
  over: {
    nodePool?: string;
    providerID?: string;
    nodeName?: string;
    conditions?: NodeClaimCondition[];
    tgp?: number | null;
    startupTaints?: NodeClaim['spec']['startupTaints'];
  } = {},
): NodeClaim {
  return {
    name,
    labels: { 'karpenter.sh/nodepool': over.nodePool ?? 'default' },
    annotations: {},
    nodePool: over.nodePool ?? 'default',
    spec: {
      taints: [],
      startupTaints: over.startupTaints ?? [],
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c5.large', 'm5.large'] }],
      resources: { requests: { cpu: 1000 } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: null,
      terminationGracePeriod: over.tgp ?? null,
    },
    status: {
      conditions: over.conditions ?? [],
      ...(over.providerID ? { providerID: over.providerID } : {}),
      ...(over.nodeName ? { nodeName: over.nodeName } : {}),
    },
    creationTimestamp: CREATED,
    finalizers: ['karpenter.sh/termination'],
  };
}

export function node(name: string, over: Partial<Node> = {}): Node {
  return {
    name,
    labels: {},
    annotations: {},
    taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
    capacity: { cpu: 2000 },
    allocatable: { cpu: 1930 },
    unschedulable: false,
    ready: true,
    creationTimestamp: CREATED,
    finalizers: [],
    ...over,
  };
}

export function pod(name: string, over: Partial<Pod> = {}): Pod {
  return {
    uid: `uid-${name}`,
    namespace: 'default',
    name,
    labels: {},
    annotations: {},
    creationTimestamp: CREATED,
    phase: 'Running',
    requests: { cpu: 500 },
    nodeSelector: {},
    tolerations: [],
    topologySpreadConstraints: [],
    hostPorts: [],
    volumeClaims: [],
    owner: { kind: 'ReplicaSet', name: 'web-abc' },
    priority: 0,
    terminationGracePeriodSeconds: 30,
    ...over,
  };
}

export interface Fakes extends LifecycleDeps {
  cluster: FakeCluster;
  cloud: FakeCloud;
  workflows: RecordingWorkflows;
  store: MemoryStateStore;
  clock: FakeClock;
  log: RecordingLogger;
  metrics: RecordingMetrics;
}

export function fakes(): Fakes {
  const clock = new FakeClock();
  const cluster = new FakeCluster();
  cluster.nodePools = [nodePool()];
  cluster.nodeClasses = [nodeClass()];
  return {
    cluster,
    cloud: new FakeCloud(),
    workflows: new RecordingWorkflows(),
    store: new MemoryStateStore(clock),
    clock,
    log: new RecordingLogger(),
    metrics: new RecordingMetrics(),
  };
}

export { RecordingLogger, RecordingMetrics, RecordingWorkflows } from './recording';

/** A planned claim of the default pool holding `pods` on a c5.large (what a test planner's solve returns). */
export function plannedClaim(pods: Pod[], over: Partial<PlannedNodeClaim> = {}): PlannedNodeClaim {
  return {
    hostname: 'hostname-1',
    nodePool: 'default',
    instanceTypes: [instanceType('c5.large', 0.085)],
    requirements: [],
    capacityType: 'spot',
    zone: null,
    pods,
    requests: { cpu: 500 * pods.length },
    daemonOverhead: {},
    price: 0.085,
    labels: {},
    taints: [],
    startupTaints: [],
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    expireAfter: null,
    terminationGracePeriod: null,
    ...over,
  };
}

/** A test planner's plannedClaimToNodeClaim: the claim as the provisioner creates it, nothing resolved. */
export const plannedToNodeClaim = (claim: PlannedNodeClaim, name: string, nowMs: EpochMs): NodeClaim => ({
  name,
  labels: {},
  annotations: {},
  nodePool: claim.nodePool,
  spec: {
    taints: [],
    startupTaints: [],
    requirements: [],
    resources: { requests: claim.requests },
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    expireAfter: null,
    terminationGracePeriod: null,
  },
  status: { conditions: [] },
  creationTimestamp: wholeSecond(nowMs),
  finalizers: [],
});

/** The scheduling input of a fake planner: the snapshot's pods no node holds, no existing nodes or DaemonSets. */
export const pendingInput: Planner['schedulingInputFromSnapshot'] = (s, types) => ({
  pods: s.pods.filter((p) => !p.nodeName),
  nodePools: s.nodePools,
  instanceTypes: types,
  existingNodes: [],
  daemonSets: [],
});

/** A planner that plans one claim per pending pod (tests of rounds, not of packing). */
export const perPodPlanner: Planner = {
  schedulingInputFromSnapshot: pendingInput,
  solve: (input) => ({
    nodeClaims: input.pods.map((p, i) => plannedClaim([p], { hostname: `hostname-${i}` })),
    existingPlacements: [],
    unschedulable: [],
    ignored: [],
  }),
  plannedClaimToNodeClaim: plannedToNodeClaim,
};
