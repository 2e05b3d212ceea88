/** Cluster objects for provisioning tests: Nodes, NodeClaims and snapshots around the core builders. */
import type { Node, Pod } from '../../../shared/core/model/kube';
import type { NodeClaim, NodeClaimCondition } from '../../../shared/core/model/karpenter';
import { Finalizer, Label } from '../../../shared/core/model/labels';
import { parseResourceList } from '../../../shared/core/model/resources';
import type { ClusterSnapshot } from '../../../shared/core/ports/cluster-client';
import { nodePool, pod, type PodOptions } from '../../fixtures/builders';
import { epochMs, type EpochMs } from '../../../shared/core/time';

/** A pod kube-scheduler has already failed to place (what Karpenter provisions for). */
export const pendingPod = (o: PodOptions = {}): Pod => ({ ...pod(o), unschedulable: true });

export function kubeNode(name: string, o: Partial<Node> & { pool?: string; cpu?: string; pods?: string } = {}): Node {
  const { pool, cpu, pods, ...rest } = o;
  const resources = parseResourceList({ cpu: cpu ?? '4', memory: '8Gi', pods: pods ?? '20' });
  return {
    name,
    labels: {
      [Label.hostname]: name,
      [Label.zone]: 'test-zone-1',
      ...(pool ? { [Label.nodePool]: pool, [Label.initialized]: 'true', [Label.registered]: 'true' } : {}),
    },
    annotations: {},
    taints: [],
    capacity: resources,
    allocatable: resources,
    providerID: `aws:///test-zone-1/i-${name}`,
    unschedulable: false,
    ready: true,
    creationTimestamp: epochMs(0),
    finalizers: [],
    ...rest,
  };
}

export function kubeClaim(
  name: string,
  o: {
    pool?: string;
    types?: string[];
    nodeName?: string;
    providerID?: string;
    conditions?: NodeClaimCondition[];
    deletionTimestamp?: EpochMs;
    allocatable?: Record<string, string>;
    zone?: string;
  } = {},
): NodeClaim {
  const pool = o.pool ?? 'default';
  return {
    name,
    labels: { [Label.nodePool]: pool },
    annotations: {},
    nodePool: pool,
    spec: {
      taints: [],
      startupTaints: [],
      requirements: [
        { key: Label.nodePool, operator: 'In', values: [pool] },
        { key: Label.instanceType, operator: 'In', values: o.types ?? ['default-instance-type'] },
        { key: Label.zone, operator: 'In', values: [o.zone ?? 'test-zone-1'] },
      ],
      resources: { requests: parseResourceList({ cpu: '1' }) },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: null,
      terminationGracePeriod: null,
    },
    status: {
      nodeName: o.nodeName,
      providerID: o.providerID,
      allocatable: o.allocatable ? parseResourceList(o.allocatable) : undefined,
      conditions: o.conditions ?? [],
    },
    creationTimestamp: epochMs(0),
    deletionTimestamp: o.deletionTimestamp,
    finalizers: [Finalizer.termination],
  };
}

export function snapshot(o: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    pods: [],
    nodes: [],
    nodeClaims: [],
    nodePools: [nodePool()],
    nodeClasses: [],
    pdbs: [],
    daemonSets: [],
    persistentVolumes: [],
    persistentVolumeClaims: [],
    storageClasses: [],
    ...o,
  };
}
