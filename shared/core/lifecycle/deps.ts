import type { Clock, CloudProvider, ClusterClient, MetricsRecorder, StateStore, WorkflowStarter } from '../ports';

/** Structured logger as the lifecycle use cases need it (Powertools Logger fits it). */
export interface LifecycleLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The ports every lifecycle use case may use. */
export interface LifecycleDeps {
  cluster: ClusterClient;
  cloud: CloudProvider;
  workflows: WorkflowStarter;
  store: StateStore;
  clock: Clock;
  log: LifecycleLogger;
  /** Karpenter's metrics (docs/metrics.md). */
  metrics: MetricsRecorder;
}

/** Lifecycle timings (docs/karpenter-reference.md §4.6, §6). */
export const LifecycleTimings = {
  /** A claim not registered within 15 min is terminated. */
  registrationTimeoutMs: 15 * 60_000,
  /** After registration, a node has this long to become initialized. */
  initializationTimeoutMs: 15 * 60_000,
  /** A drain without terminationGracePeriod still ends (fails) after this long. */
  maxDrainWithoutGracePeriodMs: 24 * 3600_000,
  /** Replacements of a disruption must be initialized within this long (Karpenter clamps to 10 min..1 h). */
  replacementReadyTimeoutMs: 10 * 60_000,
  /** ICE cache TTL (docs/karpenter-reference.md §3.4). */
  unavailableOfferingTtlSeconds: 180,
  /** Pods stuck terminating longer than this are not waited for (docs/karpenter-reference.md §4.6). */
  stuckTerminatingMs: 60_000,
} as const;
