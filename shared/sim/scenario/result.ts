/** What a simulation run reports (the JSON of `nodewright simulate -o json`). Times are simulated seconds. */
import type { ConsolidationSummary } from './consolidation-summary';
import type { ControllerBill } from '../runtime/bill';

export interface SimulatedNode {
  name: string;
  instanceId: string;
  instanceType: string;
  capacityType: 'spot' | 'on-demand';
  zone: string;
  nodePool?: string;
  nodeClaim?: string;
  launchedAt: number;
  readyAt?: number;
  interruptedAt?: number;
  terminatedAt?: number;
  terminationReason?: string;
  pricePerHour: number;
  /** Seconds stopping or stopped (from StopInstances until StartInstances, termination or the end): no compute billed. Only for an instance ever stopped. */
  stoppedSeconds?: number;
}

export type DisruptionReason = 'underutilized' | 'empty' | 'drifted' | 'expired' | 'interrupted' | 'unhealthy' | 'other';

export interface SimulatedDisruption {
  t: number;
  reason: DisruptionReason;
  /** The reason as nodewright gave it (execution input). */
  detail: string;
  nodes: string[];
  replacements: number;
}

export interface SimulationEvent {
  t: number;
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

export interface TimelinePoint {
  t: number;
  nodes: number;
  pendingPods: number;
  pricePerHour: number;
}

/** One deployed function over the whole run (runtime/cost.ts models its time and memory; docs/simulator.md). */
export interface FunctionSummary {
  invocations: number;
  /** The deployed memorySize, and the largest modelled peak of an invocation; `memoryRatio` = peak / size. */
  memorySizeMb: number;
  peakMemoryMb: number;
  memoryRatio: number;
  /** Invocations that failed as Runtime.OutOfMemory. */
  outOfMemory: number;
  /** Invocations that ran into their timeout (Sandbox.Timedout). */
  timedOut: number;
  /** The deployed timeout, and the longest invocation (a cold one's INIT included); `durationRatio` = max / timeout. */
  timeoutSeconds: number;
  maxDurationSeconds: number;
  durationRatio: number;
  /** Virtual seconds charged over the run for the function's own long computations (runtime/compute.ts; measured on this machine). */
  computeSeconds: number;
  /** Kubernetes API requests and their bytes (response bodies and watch events received, request bodies sent), in total and per simulated minute. */
  kubeRequests: number;
  kubeRequestsPerMinute: number;
  kubeBytesReceived: number;
  kubeBytesSent: number;
  kubeBytesReceivedPerMinute: number;
  kubeBytesSentPerMinute: number;
}

export interface SimulationResult {
  /** `startedAt`: the simulated clock's start (RFC 3339); every `t` counts seconds from it. */
  scenario: { name: string; seed: number; region: string; zones: string[]; durationSeconds: number; startedAt: string };
  nodes: SimulatedNode[];
  disruptions: SimulatedDisruption[];
  pods: {
    total: number;
    pendingSecondsP50: number;
    pendingSecondsP99: number;
    maxPendingSeconds: number;
    /** First seen pending → CreateFleet of the instance it was first bound to; pods that needed no launch left out (scenario/latency.ts). */
    launchLatencySecondsP50: number;
    launchLatencySecondsP99: number;
    maxLaunchLatencySeconds: number;
    /** How many pods the launch latency figures are over. */
    launchLatencyPods: number;
    /** Per scenario event time (`at`, seconds): the launch latencies of the pods first seen pending from then until the next event. */
    launchLatencyAfterEvents: { at: number; pods: number; p50: number; p99: number }[];
    /** For each `ns/deployment`: the fewest ready pods once it had first been fully ready. */
    minReadyAfterRollout: Record<string, number>;
  };
  /**
   * What the instances cost (aws/ec2-billing.ts): `total` and `perHourAtEnd` are compute (per second from launch until
   * terminated, stopped time left out); `ebs` and `ebsPerHourAtEnd` their EBS volumes, running or stopped, not in `total`.
   */
  cost: { total: number; perHourAtEnd: number; ebs?: number; ebsPerHourAtEnd?: number };
  /** What consolidation saved, measured on the world, and the pods it evicted for it (consolidation-summary.ts). */
  consolidation: ConsolidationSummary;
  /** nodewright's own AWS bill for the run, extrapolated to 30 days (runtime/metering.ts, docs/controller-cost.md). */
  controller: ControllerBill;
  /** Per deployed function that ran: memory and duration against its size and timeout, Kubernetes requests and bytes. */
  functions: Record<string, FunctionSummary>;
  violations: { pdb: number; doNotDisrupt: number; podsLost: number };
  /**
   * PersistentVolumeClaim volumes (the simulated attach/detach controller): attaches and detaches, force detaches (a
   * node went before its volume was detached: the pod that moved waited 6 minutes), Multi-Attach waits, and the
   * longest time a pod waited from its bind to its start for its volumes.
   */
  volumes: { attaches: number; detaches: number; forceDetaches: number; multiAttachWaits: number; maxStartWaitSeconds: number };
  /**
   * Node health (cluster/node-health.ts): node conditions broken by `unhealthy` events, and EC2 reboots of instances
   * (RebootInstances). Absent when the run had neither.
   */
  nodeHealth?: { injected: number; reboots: number };
  /** Faults injected (scenario `faults:`), counted per target and kind. */
  faults?: { target: string; kind: string; count: number; first: number; last: number }[];
  final: {
    nodes: number;
    pendingPods: number;
    orphanInstances: number;
    leakedNodeClaims: number;
    /** Each NodeOverlay's Ready status at the end, with why when it is not applied (absent when the run has none). */
    nodeOverlays?: Record<string, { ready: string; reason?: string; message?: string }>;
    /** Each CapacityBuffer's status.replicas and Provisioning condition (`status/reason`) at the end (absent when the run has none). */
    capacityBuffers?: Record<string, { replicas: number; provisioning: string }>;
  };
  /** The interruption queue's messages: handled (deleted), dead-lettered, expired unhandled, still queued at the end. */
  interruptionQueue: { handled: number; deadLettered: number; expired: number; queued: number };
  /** Step Functions executions with the Task functions they ran, in order. */
  executions: { machine: string; name: string; startedAt: number; stoppedAt?: number; status: string; error?: string; tasks: string[] }[];
  events: SimulationEvent[];
  timeline: TimelinePoint[];
}

/** p-th percentile (nearest rank) of the values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function disruptionReason(detail: string): DisruptionReason {
  const r = detail.toLowerCase();
  if (r.includes('underutil') || r.includes('consolidat')) return 'underutilized';
  if (r.includes('empty')) return 'empty';
  if (r.includes('drift')) return 'drifted';
  if (r.includes('expir')) return 'expired';
  if (r.includes('unhealthy')) return 'unhealthy'; // node repair (Karpenter's reason Unhealthy), before AWS Health below
  if (r.includes('interrupt') || r.includes('spot') || r.includes('rebalance') || r.includes('scheduled') || r.includes('state') || r.includes('health'))
    return 'interrupted';
  return 'other';
}
