import { describe, expect, it } from 'vitest';
import { recordClusterState, recordDisruptionCommand } from '../../../shared/core/metrics/record';
import type { Candidate, Command, DisruptionMethod } from '../../../shared/core/disruption/types';
import type { InstanceType } from '../../../shared/core/instance-types/types';
import type { NodeClaim } from '../../../shared/core/model/karpenter';
import type { Node } from '../../../shared/core/model/kube';
import { Label } from '../../../shared/core/model/labels';
import type { ClusterSnapshot } from '../../../shared/core/ports';
import { RecordingMetrics, instanceType, node, nodeClaim, nodePool, pod } from '../../fakes/lifecycle';

const GiB = 1024 ** 3;

function snapshot(over: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
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
    ...over,
  };
}

/** A node of NodePool `pool` (m5.large spot in eu-west-1a unless told otherwise). */
function managedNode(name: string, o: { pool?: string; type?: string; zone?: string; capacityType?: string } & Partial<Node> = {}): Node {
  const { pool = 'default', type = 'm5.large', zone = 'eu-west-1a', capacityType = 'spot', ...over } = o;
  return node(name, {
    labels: { [Label.nodePool]: pool, [Label.instanceType]: type, [Label.zone]: zone, [Label.capacityType]: capacityType, [Label.arch]: 'amd64' },
    capacity: { cpu: 2000, memory: 8 * GiB, pods: 29, 'ephemeral-storage': 20 * GiB },
    allocatable: { cpu: 1930, memory: 7 * GiB, pods: 29, 'ephemeral-storage': 18 * GiB },
    taints: [],
    ...over,
  });
}

/** A launched NodeClaim: labelled with its instance type, zone and capacity type, and its capacity in status. */
function launchedClaim(
  name: string,
  o: { pool?: string; type?: string; zone?: string; capacityType?: string; capacity?: NodeClaim['status']['capacity']; nodeName?: string } = {},
): NodeClaim {
  const c = nodeClaim(name, { nodePool: o.pool ?? 'default', nodeName: o.nodeName });
  c.labels[Label.instanceType] = o.type ?? 'm5.large';
  c.labels[Label.zone] = o.zone ?? 'eu-west-1a';
  c.labels[Label.capacityType] = o.capacityType ?? 'spot';
  c.status.capacity = o.capacity ?? { cpu: 2000, memory: 8 * GiB, pods: 29 };
  return c;
}

const types = (...its: InstanceType[]): Record<string, InstanceType[]> => ({ default: its });

describe('recordClusterState', () => {
  it('should report allocatable per managed node with cpu in cores and memory in bytes, labelled as Karpenter does', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    // Act
    recordClusterState(metrics, snapshot({ nodes: [managedNode('ip-10-0-0-1')] }), {});
    // Assess
    const base = { node_name: 'ip-10-0-0-1', nodepool: 'default', zone: 'eu-west-1a', capacity_type: 'spot', instance_type: 'm5.large', arch: 'amd64' };
    expect(metrics.gaugeValue('karpenter_nodes_allocatable', { ...base, resource_type: 'cpu' })).toBe(1.93);
    expect(metrics.gaugeValue('karpenter_nodes_allocatable', { ...base, resource_type: 'memory' })).toBe(7 * GiB);
    expect(metrics.gaugeValue('karpenter_nodes_allocatable', { ...base, resource_type: 'pods' })).toBe(29);
    expect(metrics.gaugeValue('karpenter_nodes_allocatable', { ...base, resource_type: 'ephemeral-storage' })).toBe(18 * GiB);
  });

  it('should report a resource the node does not list as zero and a label it lacks as empty', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const bare = node('ip-10-0-0-9', { labels: { [Label.nodePool]: 'default' }, allocatable: { cpu: 940 } });
    // Act
    recordClusterState(metrics, snapshot({ nodes: [bare] }), {});
    // Assess
    const series = metrics.matching('karpenter_nodes_allocatable', { node_name: 'ip-10-0-0-9' });
    expect(series.map((s) => [s.labels.resource_type, s.value])).toEqual([
      ['cpu', 0.94],
      ['memory', 0],
      ['pods', 0],
      ['ephemeral-storage', 0],
    ]);
    expect(series[0].labels).toMatchObject({ zone: '', capacity_type: '', instance_type: '', arch: '' });
  });

  it('should not report nodes without the karpenter.sh/nodepool label', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const unmanaged = node('ip-10-0-9-9', { labels: { [Label.instanceType]: 'm5.large' }, allocatable: { cpu: 1930 } });
    // Act
    recordClusterState(metrics, snapshot({ nodes: [managedNode('ip-10-0-0-1'), unmanaged], pods: [pod('web', { nodeName: 'ip-10-0-9-9' })] }), {});
    // Assess
    expect(metrics.matching('karpenter_nodes_allocatable', { node_name: 'ip-10-0-9-9' })).toEqual([]);
    expect(metrics.matching('karpenter_nodes_total_pod_requests', { node_name: 'ip-10-0-9-9' })).toEqual([]);
    expect(metrics.matching('karpenter_nodes_allocatable', { node_name: 'ip-10-0-0-1' })).toHaveLength(4);
  });

  it('should sum the requests of the pods bound to each node, leaving out Succeeded and Failed pods', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const pods = [
      pod('web-1', { nodeName: 'ip-10-0-0-1', requests: { cpu: 500, memory: 256 * 1024 ** 2 } }),
      pod('web-2', { nodeName: 'ip-10-0-0-1', phase: 'Pending', requests: { cpu: 250, memory: 128 * 1024 ** 2, 'ephemeral-storage': GiB } }),
      pod('job-done', { nodeName: 'ip-10-0-0-1', phase: 'Succeeded', requests: { cpu: 4000, memory: 4 * GiB } }),
      pod('job-failed', { nodeName: 'ip-10-0-0-1', phase: 'Failed', requests: { cpu: 4000, memory: 4 * GiB } }),
      pod('other', { nodeName: 'ip-10-0-0-2', requests: { cpu: 100 } }),
      pod('pending', { requests: { cpu: 8000 } }),
    ];
    // Act
    recordClusterState(metrics, snapshot({ nodes: [managedNode('ip-10-0-0-1'), managedNode('ip-10-0-0-2')], pods }), {});
    // Assess
    const n1 = { node_name: 'ip-10-0-0-1' };
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { ...n1, resource_type: 'cpu' })).toBe(0.75);
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { ...n1, resource_type: 'memory' })).toBe(384 * 1024 ** 2);
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { ...n1, resource_type: 'pods' })).toBe(2);
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { ...n1, resource_type: 'ephemeral-storage' })).toBe(GiB);
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { node_name: 'ip-10-0-0-2', resource_type: 'cpu' })).toBe(0.1);
    expect(metrics.gaugeValue('karpenter_nodes_total_pod_requests', { node_name: 'ip-10-0-0-2', resource_type: 'pods' })).toBe(1);
  });

  it('should report zero requests for a managed node without pods', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    // Act
    recordClusterState(metrics, snapshot({ nodes: [managedNode('ip-10-0-0-1')] }), {});
    // Assess
    const series = metrics.matching('karpenter_nodes_total_pod_requests', { node_name: 'ip-10-0-0-1' });
    expect(series.map((s) => s.value)).toEqual([0, 0, 0, 0]);
  });

  it("should report a nodepool's usage as the sum of its NodeClaims' capacity, with a nodes count", () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const claims = [
      launchedClaim('default-a', { capacity: { cpu: 2000, memory: 8 * GiB, pods: 29 } }),
      launchedClaim('default-b', { capacity: { cpu: 4000, memory: 16 * GiB, pods: 58 } }),
      launchedClaim('gpu-a', { pool: 'gpu', capacity: { cpu: 8000, memory: 32 * GiB, pods: 58 } }),
    ];
    // Act
    recordClusterState(metrics, snapshot({ nodePools: [nodePool('default'), nodePool('gpu')], nodeClaims: claims }), {});
    // Assess
    const usage = (nodepool: string, resource_type: string) => metrics.gaugeValue('karpenter_nodepools_usage', { nodepool, resource_type });
    expect(usage('default', 'cpu')).toBe(6);
    expect(usage('default', 'memory')).toBe(24 * GiB);
    expect(usage('default', 'pods')).toBe(87);
    expect(usage('default', 'ephemeral-storage')).toBe(0);
    expect(usage('default', 'nodes')).toBe(2);
    expect(usage('gpu', 'cpu')).toBe(8);
    expect(usage('gpu', 'nodes')).toBe(1);
  });

  it("should count a registered claim's node capacity, and a claim whose node is not seen by its own capacity", () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const registered = launchedClaim('default-a', { nodeName: 'ip-10-0-0-1', capacity: { cpu: 1000 } });
    const nodeMissing = launchedClaim('default-b', { nodeName: 'ip-10-0-0-2', capacity: { cpu: 4000 } });
    // Act
    recordClusterState(
      metrics,
      snapshot({ nodes: [managedNode('ip-10-0-0-1', { capacity: { cpu: 2000, memory: 8 * GiB } })], nodeClaims: [registered, nodeMissing] }),
      {},
    );
    // Assess
    expect(metrics.gaugeValue('karpenter_nodepools_usage', { nodepool: 'default', resource_type: 'cpu' })).toBe(6);
    expect(metrics.gaugeValue('karpenter_nodepools_usage', { nodepool: 'default', resource_type: 'memory' })).toBe(8 * GiB);
  });

  it('should report zero usage for a nodepool without NodeClaims', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    // Act
    recordClusterState(metrics, snapshot(), {});
    // Assess
    const usage = metrics.matching('karpenter_nodepools_usage', { nodepool: 'default' });
    expect(Object.fromEntries(usage.map((s) => [s.labels.resource_type, s.value]))).toEqual({ cpu: 0, memory: 0, pods: 0, 'ephemeral-storage': 0, nodes: 0 });
  });

  it('should report limits only for the resources a nodepool limits', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const limited = nodePool('default', { limits: { cpu: 100_000, memory: 400 * GiB } });
    // Act
    recordClusterState(metrics, snapshot({ nodePools: [limited, nodePool('unlimited')] }), {});
    // Assess
    const limits = metrics.matching('karpenter_nodepools_limit');
    expect(limits.map((s) => [s.labels.nodepool, s.labels.resource_type, s.value])).toEqual([
      ['default', 'cpu', 100],
      ['default', 'memory', 400 * GiB],
    ]);
  });

  it("should report a nodepool's hourly cost as the sum of the offering prices of its claims' instance type, zone and capacity type", () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const claims = [
      launchedClaim('default-a', { type: 'm5.large', capacityType: 'spot' }),
      launchedClaim('default-b', { type: 'c5.large', capacityType: 'on-demand' }),
      launchedClaim('default-c', { type: 'm5.large', capacityType: 'on-demand' }),
    ];
    // Act
    recordClusterState(metrics, snapshot({ nodeClaims: claims }), types(instanceType('m5.large', 0.1), instanceType('c5.large', 0.085)));
    // Assess: m5.large spot 0.1, c5.large on-demand 0.255, m5.large on-demand 0.3
    expect(metrics.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'default' })).toBeCloseTo(0.655);
  });

  it('should count no cost for a claim not launched yet, nor for one whose offering is not known', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const launched = launchedClaim('default-a', { type: 'm5.large', capacityType: 'spot' });
    const notLaunched = nodeClaim('default-b');
    const otherZone = launchedClaim('default-c', { type: 'm5.large', zone: 'eu-west-1c' });
    const unknownType = launchedClaim('default-d', { type: 'x9.huge' });
    // Act
    recordClusterState(metrics, snapshot({ nodeClaims: [launched, notLaunched, otherZone, unknownType] }), types(instanceType('m5.large', 0.1)));
    // Assess
    expect(metrics.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'default' })).toBeCloseTo(0.1);
    expect(metrics.gaugeValue('karpenter_nodepools_usage', { nodepool: 'default', resource_type: 'nodes' })).toBe(4);
  });

  it('should price each claim with its own nodepool instance types, and report every nodepool', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const claims = [launchedClaim('default-a'), launchedClaim('gpu-a', { pool: 'gpu' })];
    const instanceTypes = { default: [instanceType('m5.large', 0.1)], gpu: [instanceType('m5.large', 0.5)] };
    // Act
    recordClusterState(metrics, snapshot({ nodePools: [nodePool('default'), nodePool('gpu'), nodePool('idle')], nodeClaims: claims }), instanceTypes);
    // Assess
    expect(metrics.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'default' })).toBeCloseTo(0.1);
    expect(metrics.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'gpu' })).toBeCloseTo(0.5);
    expect(metrics.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'idle' })).toBe(0);
  });

  it('should report the number of nodes in the cluster', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const nodes = [managedNode('ip-10-0-0-1'), managedNode('ip-10-0-0-2'), node('ip-10-0-9-9')];
    // Act
    recordClusterState(metrics, snapshot({ nodes }), {});
    // Assess
    expect(metrics.gaugeValue('karpenter_cluster_state_node_count')).toBe(3);
  });

  it('should leave no series for a node or nodepool gone since the previous pass', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    recordClusterState(
      metrics,
      snapshot({
        nodes: [managedNode('ip-10-0-0-1'), managedNode('ip-10-0-0-2', { pool: 'gpu' })],
        nodePools: [nodePool('default'), nodePool('gpu', { limits: { cpu: 10_000 } })],
        nodeClaims: [launchedClaim('gpu-a', { pool: 'gpu', nodeName: 'ip-10-0-0-2' })],
      }),
      types(instanceType('m5.large', 0.1)),
    );
    // Act
    recordClusterState(metrics, snapshot({ nodes: [managedNode('ip-10-0-0-1')] }), {});
    // Assess
    expect(metrics.matching('karpenter_nodes_allocatable', { node_name: 'ip-10-0-0-2' })).toEqual([]);
    expect(metrics.matching('karpenter_nodes_total_pod_requests', { node_name: 'ip-10-0-0-2' })).toEqual([]);
    expect(metrics.matching('karpenter_nodepools_usage', { nodepool: 'gpu' })).toEqual([]);
    expect(metrics.matching('karpenter_nodepools_limit', { nodepool: 'gpu' })).toEqual([]);
    expect(metrics.matching('karpenter_nodepools_cost_total', { nodepool: 'gpu' })).toEqual([]);
    expect(metrics.gaugeValue('karpenter_cluster_state_node_count')).toBe(1);
  });
});

describe('recordDisruptionCommand', () => {
  function candidate(name: string, o: { pool?: string; capacityType?: Candidate['capacityType'] } = {}): Candidate {
    const pool = nodePool(o.pool ?? 'default');
    return {
      nodeClaim: launchedClaim(name, { pool: pool.name }),
      node: managedNode(`node-${name}`, { pool: pool.name }),
      nodePool: pool,
      instanceType: 'm5.large',
      capacityType: o.capacityType ?? 'spot',
      zone: 'eu-west-1a',
      price: 0.1,
      pods: [],
      disruptionCost: 1,
    };
  }
  function command(method: DisruptionMethod, reason: Command['reason'], action: Command['action'], candidates: Candidate[]): Command {
    return { method, reason, action, candidates, replacements: [], savingsPerHour: 0 };
  }

  it.each([
    ['emptiness', 'empty', 'delete', 'empty'],
    ['single-node', 'underutilized', 'replace', 'single'],
    ['multi-node', 'underutilized', 'delete', 'multi'],
    ['drift', 'drifted', 'replace', ''],
    ['expiration', 'expired', 'delete', ''],
  ] as const)('should count one %s decision with its reason, action and consolidation type', (method, reason, action, consolidationType) => {
    // Prepare
    const metrics = new RecordingMetrics();
    // Act
    recordDisruptionCommand(metrics, command(method, reason, action, [candidate('default-a'), candidate('default-b')]));
    // Assess
    const decisions = metrics.matching('karpenter_voluntary_disruption_decisions_total');
    expect(decisions).toHaveLength(1);
    expect(decisions[0].labels).toEqual({ decision: action, reason, consolidation_type: consolidationType });
    expect(decisions[0].value).toBe(1);
  });

  it('should count each candidate NodeClaim as disrupted, with its nodepool and capacity type', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const candidates = [candidate('default-a'), candidate('default-b', { capacityType: 'on-demand' }), candidate('gpu-a', { pool: 'gpu' })];
    // Act
    recordDisruptionCommand(metrics, command('multi-node', 'underutilized', 'delete', candidates));
    // Assess
    const disrupted = metrics.matching('karpenter_nodeclaims_disrupted_total');
    const labels = { reason: 'underutilized', consolidation_policy: 'when_empty_or_underutilized', termination_mode: 'graceful' };
    expect(disrupted.map((r) => r.labels)).toEqual([
      { ...labels, nodepool: 'default', capacity_type: 'spot' },
      { ...labels, nodepool: 'default', capacity_type: 'on-demand' },
      { ...labels, nodepool: 'gpu', capacity_type: 'spot' },
    ]);
    expect(metrics.total('karpenter_nodeclaims_disrupted_total')).toBe(3);
    expect(metrics.total('karpenter_nodeclaims_disrupted_total', { nodepool: 'default' })).toBe(2);
  });

  it.each([
    ['emptiness', 'empty', 'WhenEmpty', 'when_empty', null, 'graceful'],
    ['single-node', 'underutilized', 'Balanced', 'balanced', 600, 'eventual'],
    ['drift', 'drifted', 'WhenEmptyOrUnderutilized', '', 0, 'forceful'],
    ['expiration', 'expired', 'WhenEmptyOrUnderutilized', '', null, 'graceful'],
  ] as const)(
    "should label a %s disruption with Karpenter's consolidation policy and termination mode, and count its pods that must move",
    (method, reason, policy, policyLabel, gracePeriod, mode) => {
      // Prepare
      const metrics = new RecordingMetrics();
      const c = candidate('default-a');
      c.nodePool = { ...c.nodePool, disruption: { ...c.nodePool.disruption, consolidationPolicy: policy } };
      c.nodeClaim = { ...c.nodeClaim, spec: { ...c.nodeClaim.spec, terminationGracePeriod: gracePeriod } };
      c.pods = [pod('a'), pod('b'), pod('c')];
      // Act
      recordDisruptionCommand(metrics, command(method, reason, 'delete', [c]));
      // Assess
      const labels = { reason, nodepool: 'default', capacity_type: 'spot', consolidation_policy: policyLabel, termination_mode: mode };
      expect(metrics.matching('karpenter_nodeclaims_disrupted_total').map((r) => r.labels)).toEqual([labels]);
      expect(metrics.total('karpenter_pods_disruption_initiated_total', labels)).toBe(3);
    },
  );

  it('should count every command started, one decision each', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    // Act
    recordDisruptionCommand(metrics, command('drift', 'drifted', 'replace', [candidate('default-a')]));
    recordDisruptionCommand(metrics, command('drift', 'drifted', 'replace', [candidate('default-b')]));
    // Assess
    expect(metrics.total('karpenter_voluntary_disruption_decisions_total', { decision: 'replace', reason: 'drifted' })).toBe(2);
    expect(metrics.total('karpenter_nodeclaims_disrupted_total', { reason: 'drifted' })).toBe(2);
  });
});
