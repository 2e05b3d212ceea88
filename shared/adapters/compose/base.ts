/** What every function gets: its configuration, the clock, the logger and Karpenter's metrics (with their flush). */
import type { Clock, MetricsRecorder } from '../../core/ports';
import type { LifecycleLogger } from '../../core/lifecycle/deps';
import { systemClock } from '../clock';
import { config, type Config } from '../config';
import { karpenterMetrics, lifecycleLogger } from '../lambda/handler';
import { composeMetrics } from '../metrics/emf';
import { dependencyOverrides } from '../overrides';
import { inContainer } from './container';

export interface Base {
  config: Config;
  clock: Clock;
  log: LifecycleLogger;
  metrics: MetricsRecorder;
  /** Writes the invocation's metrics (deployedHandler calls it after every invocation). */
  flushMetrics(): void;
}

/** A part of a function's composition: built from the base once per container (./parts/*). */
export type Part<T> = (base: Base) => Promise<T>;

export function base(opts: { metricsEveryMs?: number } = {}): Promise<Base> {
  return inContainer('base', async () => {
    const cfg = config();
    const { overrides } = dependencyOverrides();
    const clock = overrides.clock ?? systemClock;
    // Karpenter's metrics go to CloudWatch only when asked for (each series is a billed custom metric).
    const { metrics, flush } = composeMetrics({
      ...(cfg.karpenterMetrics === 'cloudwatch' ? { cloudwatch: karpenterMetrics } : {}),
      ...(overrides.metrics ? { extra: overrides.metrics } : {}),
      ...(opts.metricsEveryMs ? { autoFlush: { everyMs: opts.metricsEveryMs, now: () => clock.now() } } : {}),
    });
    return { config: cfg, clock, log: lifecycleLogger(), metrics, flushMetrics: flush };
  });
}

/** A part memoized per container under its name, so parts that share one (the cluster access) build it once. */
export function part<T>(name: string, build: (base: Base) => Promise<T> | T): Part<T> {
  return (b) => inContainer(`part:${name}`, async () => build(b));
}
