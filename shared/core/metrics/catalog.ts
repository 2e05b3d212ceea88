/**
 * The metrics nodewright publishes: Karpenter's names, types and labels (kubernetes-sigs/karpenter pkg/metrics,
 * aws/karpenter-provider-aws pkg/controllers/interruption), so dashboards and alerts written for Karpenter work.
 * docs/metrics.md lists them (a test keeps the two in step).
 *
 * `emfDrop`: labels left out of the CloudWatch dimensions. Every distinct dimension set is a custom metric billed
 * $0.30/month, so CloudWatch gets each metric per NodePool and small enums (reason, resource, capacity type), not
 * per node, zone or instance type; the adapter sums counters and gauges over the dropped labels. Prometheus
 * (`sim serve`) keeps every label, as Karpenter does.
 */

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

export interface MetricSpec {
  type: MetricType;
  help: string;
  labels: readonly string[];
  /** Where nodewright records it (docs/metrics.md). */
  where: string;
  emfDrop?: readonly string[];
  /** Only series whose label has one of these values go to CloudWatch (the others stay in Prometheus). */
  emfOnly?: Readonly<Record<string, readonly string[]>>;
  /** A histogram's own buckets (default DURATION_BUCKETS). */
  buckets?: readonly number[];
}

/** Karpenter's duration buckets (controller-runtime's plus longer ones), in seconds. */
export const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8,
  9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600,
] as const;

/** Karpenter's summary quantiles. */
export const SUMMARY_QUANTILES = [0, 0.5, 0.9, 0.99, 1] as const;

const NODE_LABELS = ['node_name', 'nodepool', 'resource_type', 'zone', 'capacity_type', 'instance_type', 'arch'] as const;
/** Per-node detail kept out of CloudWatch: there the node gauges are per NodePool and resource. */
const NODE_DETAIL = ['node_name', 'zone', 'capacity_type', 'instance_type', 'arch'] as const;
const CPU_MEMORY = { resource_type: ['cpu', 'memory'] } as const;

export const METRICS = {
  karpenter_nodeclaims_created_total: {
    type: 'counter',
    labels: ['reason', 'nodepool', 'min_values_relaxed'],
    where:
      'provisioner and static NodePools (reason provisioned), LaunchReplacement (the disruption reason: underutilized, drifted, spot_interruption …), manual capacity (reason manual)',
    help: 'Number of nodeclaims created in total by Karpenter. Labeled by reason the nodeclaim was created, the owning nodepool, and if min values was relaxed for this nodeclaim.',
  },
  karpenter_nodeclaims_terminated_total: {
    type: 'counter',
    labels: ['nodepool', 'capacity_type', 'zone'],
    emfDrop: ['zone'],
    where: 'FinalizeNodeClaim (terminate workflow)',
    help: 'Number of nodeclaims terminated in total by Karpenter. Labeled by the owning nodepool, capacity type, and zone.',
  },
  karpenter_nodeclaims_disrupted_total: {
    type: 'counter',
    labels: ['reason', 'nodepool', 'capacity_type', 'consolidation_policy', 'termination_mode'],
    where:
      'disruption (each candidate of a started command; consolidation_policy only for consolidation, termination_mode from the claim), interruption (reason: the message type, e.g. spot_interrupted; those two labels empty, as Karpenter)',
    help: 'Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim was disrupted, the owning nodepool, the capacity type, the consolidation policy, and the termination mode.',
  },
  karpenter_nodeclaims_unhealthy_disrupted_total: {
    type: 'counter',
    labels: ['condition', 'nodepool', 'capacity_type', 'image_id'],
    where: 'disruption: each node repair that replaces or deletes an unhealthy node (condition in snake case, e.g. kernel_ready)',
    emfDrop: ['image_id'],
    help: 'Number of unhealthy nodeclaims disrupted in total by Karpenter. Labeled by condition on the node was disrupted, the owning nodepool, and the image ID.',
  },
  karpenter_nodeclaims_unhealthy_rebooted_total: {
    type: 'counter',
    labels: ['condition', 'nodepool', 'capacity_type', 'image_id'],
    where: 'disruption: each node repair reboot (a nodewright extension: the first action for a monitoring-agent condition a reboot can clear)',
    emfDrop: ['image_id'],
    help: 'Number of unhealthy nodeclaims rebooted in total by node repair. Labeled by condition on the node, the owning nodepool, the capacity type, and the image ID.',
  },
  karpenter_pods_disruption_initiated_total: {
    type: 'counter',
    labels: ['reason', 'nodepool', 'capacity_type', 'consolidation_policy', 'termination_mode'],
    where: 'disruption: each candidate of a started command, by the count of its pods that must move (DaemonSet and static pods excluded)',
    help: 'Number of pod disruptions initiated in total by Karpenter, incremented by the reschedulable pod count whenever the underlying nodeclaim is disrupted. Labeled by reason the nodeclaim was disrupted, the owning nodepool, the capacity type, the consolidation policy, and the termination mode. Pods owned by DaemonSets and mirror pods are excluded.',
  },
  karpenter_nodes_created_total: {
    type: 'counter',
    labels: ['nodepool', 'zone'],
    emfDrop: ['zone'],
    where: 'CheckRegistration (launch workflow), when the node registers',
    help: 'Number of nodes created in total by Karpenter. Labeled by owning nodepool and zone.',
  },
  karpenter_nodes_terminated_total: {
    type: 'counter',
    labels: ['nodepool', 'zone'],
    emfDrop: ['zone'],
    where: 'FinalizeNodeClaim, when a registered node is gone',
    help: 'Number of nodes terminated in total by Karpenter. Labeled by owning nodepool and zone.',
  },
  karpenter_nodes_termination_duration_seconds: {
    type: 'summary',
    labels: ['nodepool'],
    where: 'FinalizeNodeClaim: from the deletion request to the node gone',
    help: "The time taken between a node's deletion request and the removal of its finalizer",
  },
  karpenter_pods_startup_duration_seconds: {
    type: 'summary',
    labels: [],
    where: 'controller (pods watch): a pod seen Pending, from its creation to Ready',
    help: 'The time from pod creation until the pod is running.',
  },
  karpenter_nodes_allocatable: {
    type: 'gauge',
    labels: NODE_LABELS,
    emfDrop: NODE_DETAIL,
    emfOnly: CPU_MEMORY,
    where: 'disruption, every pass',
    help: 'Node allocatable are the resources allocatable by nodes.',
  },
  karpenter_nodes_total_pod_requests: {
    type: 'gauge',
    labels: NODE_LABELS,
    emfDrop: NODE_DETAIL,
    emfOnly: CPU_MEMORY,
    where: 'disruption, every pass',
    help: 'Node total pod requests are the resources requested by pods bound to nodes, including the DaemonSet pods.',
  },
  karpenter_nodepools_usage: {
    type: 'gauge',
    labels: ['nodepool', 'resource_type'],
    emfOnly: { resource_type: ['cpu', 'memory', 'nodes'] },
    where: 'disruption, every pass',
    help: 'The amount of resources that have been provisioned for a nodepool. Labeled by nodepool name and resource type.',
  },
  karpenter_nodepools_limit: {
    type: 'gauge',
    labels: ['nodepool', 'resource_type'],
    where: 'disruption, every pass (pools with limits)',
    help: 'Limits specified on the nodepool that restrict the quantity of resources provisioned. Labeled by nodepool name and resource type.',
  },
  karpenter_nodepools_cost_total: {
    type: 'gauge',
    labels: ['nodepool'],
    where: "disruption, every pass: the hourly price of the pool's launched nodeclaims (USD/h)",
    help: "Total cost of the nodepool from Karpenter's perspective. Units are determined by the cloud provider (USD per hour). Not an authoritative source for billing.",
  },
  karpenter_cluster_state_node_count: {
    type: 'gauge',
    labels: [],
    where: 'disruption, every pass',
    help: 'Current count of nodes in cluster state',
  },
  karpenter_scheduler_scheduling_duration_seconds: {
    type: 'histogram',
    labels: ['controller'],
    where: 'provisioner, each solve (controller provisioner)',
    help: 'Duration of scheduling simulations used for deprovisioning and provisioning in seconds.',
  },
  karpenter_scheduler_queue_depth: {
    type: 'gauge',
    labels: ['controller'],
    where: 'provisioner, each round',
    help: 'The number of pods currently waiting to be scheduled.',
  },
  karpenter_scheduler_unschedulable_pods_count: {
    type: 'gauge',
    labels: ['controller'],
    where: 'provisioner, each round',
    help: 'The number of unschedulable Pods.',
  },
  karpenter_voluntary_disruption_decisions_total: {
    type: 'counter',
    labels: ['decision', 'reason', 'consolidation_type'],
    where: 'disruption, each command started',
    help: 'Number of disruption decisions performed. Labeled by disruption decision, reason, and consolidation type.',
  },
  karpenter_consolidation_moves_total: {
    type: 'counter',
    labels: ['decision', 'nodepool', 'policy'],
    where: 'disruption, each consolidation move a Balanced pool scored and that started',
    help: 'Consolidation moves scored by the Balanced policy. Labeled by decision, NodePool and consolidation policy.',
  },
  karpenter_consolidation_score: {
    type: 'histogram',
    labels: ['decision', 'nodepool', 'policy'],
    where: 'disruption, each consolidation move a Balanced pool scored and that started',
    help: 'Balanced consolidation score of a move: its share of the NodePool savings over its share of the NodePool disruption cost.',
    buckets: [0.1, 0.25, 0.33, 0.5, 1.0, 2.0, 5.0, 10.0],
  },
  karpenter_voluntary_disruption_eligible_nodes: {
    type: 'gauge',
    labels: ['reason'],
    where: 'disruption, every pass',
    help: 'Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.',
  },
  karpenter_voluntary_disruption_decision_evaluation_duration_seconds: {
    type: 'histogram',
    labels: ['reason', 'consolidation_type'],
    where: 'disruption, every pass (reason all: the whole pass)',
    help: 'Duration of the disruption decision evaluation process in seconds. Labeled by method and consolidation type.',
  },
  karpenter_interruption_received_messages_total: {
    type: 'counter',
    labels: ['message_type'],
    where: 'interruption, every SQS message',
    help: 'Count of messages received from the SQS queue. Broken down by message type and whether the message was actionable.',
  },
  karpenter_interruption_deleted_messages_total: {
    type: 'counter',
    labels: [],
    where: 'interruption, every message handled (deleted from the queue)',
    help: 'Count of messages deleted from the SQS queue.',
  },
  karpenter_interruption_message_queue_duration_seconds: {
    type: 'histogram',
    labels: [],
    where: 'interruption: from SQS SentTimestamp to handling',
    help: 'Amount of time an interruption message is on the queue before it is processed by karpenter.',
  },
  karpenter_cloudprovider_errors_total: {
    type: 'counter',
    labels: ['controller', 'method', 'provider', 'error'],
    where: 'LaunchNodeClaim (method Create), TerminateInstance (method Delete)',
    help: 'Total number of errors returned from CloudProvider calls.',
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricName = keyof typeof METRICS;
