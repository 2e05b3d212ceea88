/**
 * Karpenter's metrics in a Prometheus registry (prom-client), as Karpenter serves them on :8080/metrics: every
 * label kept, histograms with Karpenter's duration buckets, summaries with its quantiles. The simulator records
 * into one per world, beside the deployed EMF recorder, and `sim serve` exposes it on /metrics.
 */
import { Counter, Gauge, Histogram, Registry, Summary, type Metric } from 'prom-client';
import type { GaugeSample, MetricLabels, MetricsRecorder } from '../../core/ports';
import { DURATION_BUCKETS, METRICS, SUMMARY_QUANTILES, type MetricName, type MetricSpec } from '../../core/metrics/catalog';
import { timed } from './timed';

type Labels = Record<string, string>;

export class PrometheusMetricsRecorder implements MetricsRecorder {
  readonly registry = new Registry();
  private readonly metrics = new Map<MetricName, Metric>();

  private metric<M extends Metric>(name: MetricName): M {
    let m = this.metrics.get(name);
    if (!m) {
      const spec: MetricSpec = METRICS[name];
      const common = { name, help: spec.help, labelNames: [...spec.labels], registers: [this.registry] };
      if (spec.type === 'counter') m = new Counter(common);
      else if (spec.type === 'gauge') m = new Gauge(common);
      else if (spec.type === 'histogram') m = new Histogram({ ...common, buckets: [...(spec.buckets ?? DURATION_BUCKETS)] });
      else m = new Summary({ ...common, percentiles: [...SUMMARY_QUANTILES] });
      this.metrics.set(name, m);
    }
    return m as M;
  }

  /** Only the metric's own labels, every one present ('' where the caller has none), as prom-client requires. */
  private labels(name: MetricName, labels: MetricLabels = {}): Labels {
    return Object.fromEntries(METRICS[name].labels.map((l) => [l, labels[l] ?? '']));
  }

  count(name: MetricName, labels?: MetricLabels, value = 1): void {
    this.metric<Counter>(name).inc(this.labels(name, labels), value);
  }

  gauge(name: MetricName, labels: MetricLabels, value: number): void {
    this.metric<Gauge>(name).set(this.labels(name, labels), value);
  }

  gaugeSet(name: MetricName, samples: readonly GaugeSample[]): void {
    const g = this.metric<Gauge>(name);
    g.reset();
    for (const s of samples) g.set(this.labels(name, s.labels), s.value);
  }

  observe(name: MetricName, labels: MetricLabels, value: number): void {
    this.metric<Histogram | Summary>(name).observe(this.labels(name, labels), value);
  }

  time<T>(name: MetricName, labels: MetricLabels, work: () => Promise<T>): Promise<T> {
    return timed(work, (seconds) => this.observe(name, labels, seconds));
  }

  /** The Prometheus text exposition (Content-Type: `contentType`). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
