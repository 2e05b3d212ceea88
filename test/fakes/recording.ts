/**
 * The recording fakes every test shares: the logger, the workflow starter and the metrics recorder as the use
 * cases see them, keeping what they were given for the test to assert on.
 */
import type { LifecycleLogger } from '../../shared/core/lifecycle';
import type { MetricName } from '../../shared/core/metrics/catalog';
import type { GaugeSample, MetricLabels, MetricsRecorder, WorkflowName, WorkflowStarter } from '../../shared/core/ports';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** Captures log lines (message + fields), as the LifecycleLogger over Powertools emits them. */
export class RecordingLogger implements LifecycleLogger {
  readonly lines: LogLine[] = [];
  info(message: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'error', message, fields });
  }
  messages(level?: LogLine['level']): string[] {
    return this.lines.filter((l) => !level || l.level === level).map((l) => l.message);
  }
}

/**
 * Records started executions; a name already used answers alreadyStarted. With `idempotentWhileRunning`, a
 * repeat with the same input answers like a new start, as Step Functions' StartExecution does while the
 * execution runs.
 */
export class RecordingWorkflows implements WorkflowStarter {
  readonly started: { machine: WorkflowName; name: string; input: unknown }[] = [];
  /** Every name asked for, repeats included. */
  readonly attempts: string[] = [];
  constructor(private readonly idempotentWhileRunning = false) {}
  async start(machine: WorkflowName, name: string, input: unknown) {
    this.attempts.push(name);
    const executionArn = `arn:aws:states:eu-west-1:000000000000:execution:${machine}:${name}`;
    const previous = this.started.find((s) => s.machine === machine && s.name === name);
    if (previous) return { executionArn, alreadyStarted: !(this.idempotentWhileRunning && JSON.stringify(previous.input) === JSON.stringify(input)) };
    this.started.push({ machine, name, input });
    return { executionArn, alreadyStarted: false };
  }
}

/** Every metric recorded, in order; `total` sums a counter (or the observations) over series matching `labels`. */
export class RecordingMetrics implements MetricsRecorder {
  readonly records: { kind: 'count' | 'gauge' | 'observe'; name: MetricName; labels: MetricLabels; value: number }[] = [];
  count(name: MetricName, labels: MetricLabels = {}, value = 1): void {
    this.records.push({ kind: 'count', name, labels, value });
  }
  gauge(name: MetricName, labels: MetricLabels, value: number): void {
    this.records.push({ kind: 'gauge', name, labels, value });
  }
  gaugeSet(name: MetricName, samples: readonly GaugeSample[]): void {
    // A set replaces the gauge's earlier series.
    for (let i = this.records.length - 1; i >= 0; i--) if (this.records[i].kind === 'gauge' && this.records[i].name === name) this.records.splice(i, 1);
    for (const s of samples) this.gauge(name, s.labels, s.value);
  }
  observe(name: MetricName, labels: MetricLabels, value: number): void {
    this.records.push({ kind: 'observe', name, labels, value });
  }
  async time<T>(name: MetricName, labels: MetricLabels, work: () => Promise<T>): Promise<T> {
    const out = await work();
    this.observe(name, labels, 0);
    return out;
  }
  matching(name: MetricName, labels: MetricLabels = {}) {
    return this.records.filter((r) => r.name === name && Object.entries(labels).every(([k, v]) => r.labels[k] === v));
  }
  total(name: MetricName, labels: MetricLabels = {}): number {
    return this.matching(name, labels).reduce((s, r) => s + r.value, 0);
  }
  /** A gauge's latest value per label set. */
  gaugeValue(name: MetricName, labels: MetricLabels = {}): number | undefined {
    return this.matching(name, labels)
      .filter((r) => r.kind === 'gauge')
      .at(-1)?.value;
  }
}
