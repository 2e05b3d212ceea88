/**
 * The deployed MetricsRecorder: Karpenter's metrics as CloudWatch embedded-metric-format documents, written by
 * Powertools Metrics at the end of each invocation (deployedHandler flushes it). One document per dimension set
 * (the metric's labels, empty ones left out, plus Powertools' `service`); labels the catalog marks `emfDrop` are
 * not dimensions (unbounded values cost one custom metric each) and gauges are summed over them; series outside
 * `emfOnly` stay out of CloudWatch.
 * Counters are summed per invocation, gauges keep their last value, observations go out as a value list.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { GaugeSample, MetricLabels, MetricsRecorder } from '../../core/ports';
import { METRICS, type MetricName, type MetricSpec } from '../../core/metrics/catalog';
import { timed } from './timed';

/**
 * Values per metric per document. EMF allows 100, but Powertools publishes a document by itself the moment a
 * metric reaches 100 values and clears its dimensions, so the group's later metrics would lose theirs: stay below.
 */
const MAX_VALUES = 99;

interface Series {
  name: MetricName;
  dims: Record<string, string>;
  /** Counters: one running sum; histograms/summaries: every value; gauges: the value per full label set. */
  values: number[];
  gauges?: Map<string, number>;
}

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

const unitOf = (name: MetricName): Unit => {
  const type = METRICS[name].type;
  if (type === 'counter') return MetricUnit.Count;
  if (type === 'histogram' || type === 'summary') return MetricUnit.Seconds;
  return MetricUnit.NoUnit;
};

export class EmfMetricsRecorder implements MetricsRecorder {
  private readonly series = new Map<string, Series>();

  private lastFlushMs: number | undefined;

  /**
   * `metrics`: a Powertools Metrics instance of its own (not the one logMetrics flushes), reused for every document.
   * `autoFlush`: for a long invocation (the controller), also write what was recorded every `everyMs`.
   */
  constructor(
    private readonly metrics: Metrics,
    private readonly autoFlush?: { everyMs: number; now: () => number },
  ) {}

  private recorded(): void {
    if (!this.autoFlush) return;
    const now = this.autoFlush.now();
    this.lastFlushMs ??= now;
    if (now - this.lastFlushMs >= this.autoFlush.everyMs) this.flush();
  }

  private entry(name: MetricName, labels: MetricLabels): Series | undefined {
    const spec: MetricSpec = METRICS[name];
    for (const [label, values] of Object.entries(spec.emfOnly ?? {})) if (!values.includes(labels[label] ?? '')) return undefined;
    const drop = new Set<string>(spec.emfDrop ?? []);
    const dims: Record<string, string> = {};
    for (const label of METRICS[name].labels) {
      const value = labels[label];
      if (value && !drop.has(label)) dims[label] = value;
    }
    const key = `${name}|${JSON.stringify(dims)}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { name, dims, values: [] }));
    return s;
  }

  count(name: MetricName, labels: MetricLabels = {}, value = 1): void {
    const s = this.entry(name, labels);
    if (s) s.values[0] = (s.values[0] ?? 0) + value;
  }

  gauge(name: MetricName, labels: MetricLabels, value: number): void {
    const s = this.entry(name, labels);
    if (s) (s.gauges ??= new Map()).set(JSON.stringify(labels), value);
  }

  gaugeSet(name: MetricName, samples: readonly GaugeSample[]): void {
    // The set replaces every series of the gauge recorded earlier in this invocation (a gone node or pool).
    for (const [key, s] of this.series) if (s.name === name) this.series.delete(key);
    for (const s of samples) this.gauge(name, s.labels, s.value);
  }

  observe(name: MetricName, labels: MetricLabels, value: number): void {
    this.entry(name, labels)?.values.push(value);
    this.recorded();
  }

  time<T>(name: MetricName, labels: MetricLabels, work: () => Promise<T>): Promise<T> {
    return timed(work, (seconds) => this.observe(name, labels, seconds));
  }

  /** Writes what this invocation recorded, one EMF document per dimension set, and forgets it. Never throws. */
  flush(): void {
    if (this.autoFlush) this.lastFlushMs = this.autoFlush.now();
    const groups = new Map<string, Series[]>();
    for (const s of this.series.values()) {
      const key = JSON.stringify(s.dims);
      const group = groups.get(key);
      if (group) group.push(s);
      else groups.set(key, [s]);
    }
    this.series.clear();
    for (const group of groups.values()) {
      try {
        this.publish(group);
      } catch {
        this.metrics.clearMetrics();
        this.metrics.clearDimensions();
      }
    }
  }

  private publish(group: Series[]): void {
    const values = (s: Series) => (s.gauges ? [[...s.gauges.values()].reduce((a, b) => a + b, 0)] : s.values);
    for (let offset = 0; group.some((s) => values(s).length > offset); offset += MAX_VALUES) {
      this.metrics.addDimensions(group[0].dims);
      for (const s of group) {
        for (const v of values(s).slice(offset, offset + MAX_VALUES)) this.metrics.addMetric(s.name, unitOf(s.name), v);
      }
      this.metrics.publishStoredMetrics();
    }
  }
}

/** Records into every recorder (the simulator adds its Prometheus registry to the deployed EMF one). */
export function teeMetrics(...recorders: MetricsRecorder[]): MetricsRecorder {
  return {
    count: (name, labels, value) => recorders.forEach((r) => r.count(name, labels, value)),
    gauge: (name, labels, value) => recorders.forEach((r) => r.gauge(name, labels, value)),
    gaugeSet: (name, samples) => recorders.forEach((r) => r.gaugeSet(name, samples)),
    observe: (name, labels, value) => recorders.forEach((r) => r.observe(name, labels, value)),
    time: (name, labels, work) => timed(work, (seconds) => recorders.forEach((r) => r.observe(name, labels, seconds))),
  };
}

/**
 * What a composition root records into: EMF when the deployment turned Karpenter's metrics on (`metrics`: a
 * Powertools instance of their own), and `extra` (the simulator's Prometheus registry); `flush` writes the EMF.
 */
export function composeMetrics(o: { cloudwatch?: Metrics; extra?: MetricsRecorder; autoFlush?: { everyMs: number; now: () => number } }): {
  metrics: MetricsRecorder;
  flush(): void;
} {
  const emf = o.cloudwatch ? new EmfMetricsRecorder(o.cloudwatch, o.autoFlush) : undefined;
  const recorders = [emf, o.extra].filter((r): r is MetricsRecorder => r !== undefined);
  return { metrics: recorders.length === 1 ? recorders[0] : teeMetrics(...recorders), flush: () => emf?.flush() };
}
