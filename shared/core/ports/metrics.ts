/**
 * Metrics, as the use cases record them: Karpenter's metric names and labels (shared/core/metrics/catalog.ts).
 * Deployed, the adapter writes CloudWatch EMF through Powertools Metrics once per invocation; the simulator also
 * keeps them in a Prometheus registry (`sim serve` → /metrics). Recording never throws and never blocks: a
 * metric is an observation, not a side effect the use case depends on.
 */
import type { MetricName } from '../metrics/catalog';

export type MetricLabels = Readonly<Record<string, string>>;

export interface GaugeSample {
  labels: MetricLabels;
  value: number;
}

export interface MetricsRecorder {
  /** Adds `value` (default 1) to a counter. */
  count(name: MetricName, labels?: MetricLabels, value?: number): void;
  /** Sets a gauge to its current value. */
  gauge(name: MetricName, labels: MetricLabels, value: number): void;
  /** Sets every series of a gauge at once: series not in `samples` are gone (their node or pool is). */
  gaugeSet(name: MetricName, samples: readonly GaugeSample[]): void;
  /** Observes one value (seconds) of a histogram or summary. */
  observe(name: MetricName, labels: MetricLabels, value: number): void;
  /**
   * Runs `work` and observes how long it took in real time (seconds). Use cases cannot read a wall clock, and
   * the simulator's clock is virtual: only the adapter can measure how long a computation really takes.
   */
  time<T>(name: MetricName, labels: MetricLabels, work: () => Promise<T>): Promise<T>;
}
