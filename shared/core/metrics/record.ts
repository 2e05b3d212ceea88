/**
 * What the use cases record, computed from what they already hold (a snapshot, the instance types, a command):
 * Karpenter's gauges of cluster state and its disruption counters. Pure: the MetricsRecorder port writes them.
 */
import { isVirtualPod } from '../buffers/virtual-pods';
import type { InstanceType } from '../instance-types/types';
import { Label } from '../model/labels';
import type { Pod } from '../model/kube';
import type { ClusterSnapshot, GaugeSample, MetricsRecorder } from '../ports';
import type { Command, DisruptionMethod } from '../disruption/types';

/** Karpenter reports quantities as plain numbers: cpu in cores, memory and storage in bytes. */
const metricValue = (resource: string, value: number): number => (resource === 'cpu' ? value / 1000 : value);

const RESOURCES = ['cpu', 'memory', 'pods', 'ephemeral-storage'] as const;

const podCounts = (p: Pod) => p.phase !== 'Succeeded' && p.phase !== 'Failed';

/**
 * Gauges of the cluster as one snapshot shows it: per managed node its allocatable and pod requests, per NodePool
 * its usage (the capacity of its NodeClaims, as status.resources), limits and hourly cost (each launched claim's
 * offering price in `instanceTypes`), and the node count. Each gauge is replaced as a whole, so a gone node or
 * pool leaves no stale series.
 */
export function recordClusterState(metrics: MetricsRecorder, snapshot: ClusterSnapshot, instanceTypes: Record<string, InstanceType[]>): void {
  const allocatable: GaugeSample[] = [];
  const requests: GaugeSample[] = [];
  const podsOn = new Map<string, Pod[]>();
  for (const p of snapshot.pods) {
    if (!p.nodeName || !podCounts(p)) continue;
    const on = podsOn.get(p.nodeName);
    if (on) on.push(p);
    else podsOn.set(p.nodeName, [p]);
  }
  for (const n of snapshot.nodes) {
    const nodepool = n.labels[Label.nodePool];
    if (!nodepool) continue;
    const base = {
      node_name: n.name,
      nodepool,
      zone: n.labels[Label.zone] ?? '',
      capacity_type: n.labels[Label.capacityType] ?? '',
      instance_type: n.labels[Label.instanceType] ?? '',
      arch: n.labels[Label.arch] ?? '',
    };
    const pods = podsOn.get(n.name) ?? [];
    for (const r of RESOURCES) {
      allocatable.push({ labels: { ...base, resource_type: r }, value: metricValue(r, n.allocatable[r] ?? 0) });
      const requested = r === 'pods' ? pods.length : pods.reduce((s, p) => s + (p.requests[r] ?? 0), 0);
      requests.push({ labels: { ...base, resource_type: r }, value: metricValue(r, requested) });
    }
  }
  metrics.gaugeSet('karpenter_nodes_allocatable', allocatable);
  metrics.gaugeSet('karpenter_nodes_total_pod_requests', requests);

  const nodes = new Map(snapshot.nodes.map((n) => [n.name, n]));
  const usage: GaugeSample[] = [];
  const limits: GaugeSample[] = [];
  const cost: GaugeSample[] = [];
  for (const pool of snapshot.nodePools) {
    const sum: Record<string, number> = { cpu: 0, memory: 0, pods: 0, 'ephemeral-storage': 0, nodes: 0 };
    let hourly = 0;
    const offerings = new Map((instanceTypes[pool.name] ?? []).map((t) => [t.name, t.offerings]));
    for (const c of snapshot.nodeClaims) {
      if (c.labels[Label.nodePool] !== pool.name) continue;
      sum.nodes++;
      const capacity = (c.status.nodeName ? nodes.get(c.status.nodeName)?.capacity : undefined) ?? c.status.capacity ?? {};
      for (const r of RESOURCES) sum[r] += capacity[r] ?? 0;
      hourly += claimPrice(offerings, c);
    }
    for (const [r, v] of Object.entries(sum)) usage.push({ labels: { nodepool: pool.name, resource_type: r }, value: metricValue(r, v) });
    for (const [r, v] of Object.entries(pool.limits)) limits.push({ labels: { nodepool: pool.name, resource_type: r }, value: metricValue(r, v) });
    cost.push({ labels: { nodepool: pool.name }, value: hourly });
  }
  metrics.gaugeSet('karpenter_nodepools_usage', usage);
  metrics.gaugeSet('karpenter_nodepools_limit', limits);
  metrics.gaugeSet('karpenter_nodepools_cost_total', cost);
  metrics.gauge('karpenter_cluster_state_node_count', {}, snapshot.nodes.length);
}

/** Karpenter's consolidation_type label: empty / single / multi for consolidation, none for drift and expiration. */
const consolidationType = (method: DisruptionMethod): string =>
  ({ emptiness: 'empty', 'single-node': 'single', 'multi-node': 'multi', drift: '', expiration: '', repair: '' })[method];

/** Karpenter's pretty.ToSnakeCase: `WhenEmptyOrUnderutilized` → `when_empty_or_underutilized`. */
const snakeCase = (s: string): string =>
  s
    .replace(/(.)([A-Z][a-z]+)/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();

/** Karpenter's termination_mode: graceful without a terminationGracePeriod, forceful at 0, eventual otherwise. */
const terminationMode = (gracePeriodSeconds: number | null): string =>
  gracePeriodSeconds === null ? 'graceful' : gracePeriodSeconds <= 0 ? 'forceful' : 'eventual';

/** A started disruption command: one decision, and each of its NodeClaims disrupted (and the pods that must move). */
export function recordDisruptionCommand(metrics: MetricsRecorder, cmd: Command): void {
  if (cmd.repair) {
    recordRepair(metrics, cmd, cmd.repair);
    if (cmd.action === 'reboot') return;
  } else
    metrics.count('karpenter_voluntary_disruption_decisions_total', {
      decision: cmd.action,
      reason: cmd.reason,
      consolidation_type: consolidationType(cmd.method),
    });
  // Karpenter v1.15's labels: the pool's consolidation policy for a consolidation (none for drift and expiration),
  // and how the node will be drained (its claim's terminationGracePeriod).
  const consolidation = consolidationType(cmd.method) !== '';
  for (const c of cmd.candidates) {
    const labels = {
      reason: cmd.reason,
      nodepool: c.nodePool.name,
      capacity_type: c.capacityType,
      consolidation_policy: consolidation ? snakeCase(c.nodePool.disruption.consolidationPolicy) : '',
      termination_mode: terminationMode(c.nodeClaim.spec.terminationGracePeriod),
    };
    metrics.count('karpenter_nodeclaims_disrupted_total', labels);
    metrics.count('karpenter_pods_disruption_initiated_total', labels, c.pods.filter((p) => !isVirtualPod(p)).length);
  }
  for (const s of cmd.scores ?? []) {
    const labels = { decision: 'approved', nodepool: s.nodePool, policy: 'Balanced' };
    metrics.count('karpenter_consolidation_moves_total', labels);
    metrics.observe('karpenter_consolidation_score', labels, s.score);
  }
}

/** Node repair (Karpenter's node.health controller): the unhealthy nodes disrupted by condition, and nodewright's reboots. */
function recordRepair(metrics: MetricsRecorder, cmd: Command, repair: NonNullable<Command['repair']>): void {
  const condition = snakeCase(repair.condition);
  for (const c of cmd.candidates) {
    metrics.count(cmd.action === 'reboot' ? 'karpenter_nodeclaims_unhealthy_rebooted_total' : 'karpenter_nodeclaims_unhealthy_disrupted_total', {
      condition,
      nodepool: c.nodePool.name,
      capacity_type: c.capacityType,
      image_id: c.nodeClaim.status.imageID ?? '',
    });
  }
}

/** A claim's hourly price: its type's offering in its zone and capacity type (0 when the type is not offered). */
function claimPrice(offerings: ReadonlyMap<string, InstanceType['offerings']>, c: ClusterSnapshot['nodeClaims'][number]): number {
  const type = c.labels[Label.instanceType];
  return (type ? offerings.get(type)?.find((o) => o.zone === c.labels[Label.zone] && o.capacityType === c.labels[Label.capacityType])?.price : undefined) ?? 0;
}

/** The hourly price of the NodePools' launched claims (each at its offering's price), and how many there are. */
export function fleetCost(snapshot: Pick<ClusterSnapshot, 'nodeClaims'>, instanceTypes: Record<string, InstanceType[]>): { perHour: number; nodes: number } {
  let perHour = 0;
  let nodes = 0;
  const offerings = new Map<string, Map<string, InstanceType['offerings']>>();
  for (const c of snapshot.nodeClaims) {
    const pool = c.labels[Label.nodePool];
    const type = c.labels[Label.instanceType];
    if (!pool || !type || !c.status.providerID) continue;
    let byType = offerings.get(pool);
    if (!byType) offerings.set(pool, (byType = new Map((instanceTypes[pool] ?? []).map((t) => [t.name, t.offerings]))));
    nodes++;
    perHour += claimPrice(byType, c);
  }
  return { perHour: Math.round(perHour * 1e4) / 1e4, nodes };
}
