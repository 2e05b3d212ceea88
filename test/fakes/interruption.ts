/** Builders for the interruption and garbage-collection tests: instances, claims and nodes of cluster `demo` (fakes: ./ports.ts). */
import type { CloudInstance } from '../../shared/core/ports';
import type { NodeClaim } from '../../shared/core/model/karpenter';
import type { Node } from '../../shared/core/model/kube';
import { FakeCloud } from './ports';
import { epochMs } from '../../shared/core/time';

export const CLUSTER = 'demo';
export const NOW = epochMs(Date.parse('2026-11-21T23:40:00Z'));
const ownedTags = { 'kubernetes.io/cluster/demo': 'owned', 'karpenter.sh/nodepool': 'default', 'eks:eks-cluster-name': 'demo' };

export function instance(id: string, opts: Partial<CloudInstance> = {}): CloudInstance {
  return {
    instanceId: id,
    providerID: `aws:///us-west-2a/${id}`,
    instanceType: 'm5.large',
    zone: 'us-west-2a',
    capacityType: 'spot',
    launchTime: epochMs(NOW - 60 * 60_000),
    state: 'running',
    tags: ownedTags,
    ...opts,
  };
}

export function nodeClaim(
  name: string,
  opts: { instanceId?: string; ageMs?: number; registered?: boolean; launched?: boolean; nodeName?: string } = {},
): NodeClaim {
  const launched = opts.launched ?? !!opts.instanceId;
  return {
    name,
    labels: {
      'karpenter.sh/nodepool': 'default',
      'node.kubernetes.io/instance-type': 'm5.large',
      'topology.kubernetes.io/zone': 'us-west-2a',
      'karpenter.sh/capacity-type': 'spot',
    },
    annotations: {},
    nodePool: 'default',
    spec: {
      taints: [],
      startupTaints: [],
      requirements: [],
      resources: { requests: {} },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: null,
      terminationGracePeriod: null,
    },
    status: {
      conditions: [
        ...(launched ? [{ type: 'Launched', status: 'True' as const, lastTransitionTime: epochMs(NOW - (opts.ageMs ?? 60 * 60_000)) }] : []),
        ...(opts.registered ? [{ type: 'Registered', status: 'True' as const }] : []),
      ],
      ...(opts.instanceId ? { providerID: `aws:///us-west-2a/${opts.instanceId}` } : {}),
      ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
    },
    creationTimestamp: epochMs(NOW - (opts.ageMs ?? 60 * 60_000)),
    finalizers: ['karpenter.sh/termination'],
  };
}

export function node(name: string, instanceId: string, ready = true): Node {
  return {
    name,
    labels: {},
    annotations: {},
    taints: [],
    capacity: {},
    allocatable: {},
    providerID: `aws:///us-west-2a/${instanceId}`,
    unschedulable: false,
    ready,
    creationTimestamp: epochMs(NOW - 60 * 60_000),
    finalizers: [],
  };
}

/** The cloud of cluster `demo`: owns what carries its ownership tag. */
export const demoCloud = (instances: CloudInstance[] = []) => new FakeCloud(instances, CLUSTER);

export { FakeCluster } from './ports';

export const fixedClock = { now: () => NOW, sleep: async () => {} };

export { RecordingLogger, RecordingWorkflows as FakeWorkflows } from './recording';
