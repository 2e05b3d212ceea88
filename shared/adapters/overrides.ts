/**
 * What the simulator replaces when it binds a world (its virtual clock), read by every function's composition
 * (./compose). `generation` changes on every reset, so a container knows its built dependencies are stale.
 */
import type { Clock, MetricsRecorder } from '../core/ports';

export interface DependencyOverrides {
  clock?: Clock;
  /** Records every metric here too (the simulator's Prometheus registry, for `sim serve` /metrics). */
  metrics?: MetricsRecorder;
  /**
   * Which container (sandbox) the current invocation runs in. A deployed Lambda is one container per process;
   * the simulator runs many in one process, each with its own dependencies, built when it starts cold.
   */
  containerKey?: () => string | undefined;
}

let current: DependencyOverrides = {};
let generation = 0;

export function dependencyOverrides(): { overrides: DependencyOverrides; generation: number } {
  return { overrides: current, generation };
}

export function setDependencyOverrides(next: DependencyOverrides): void {
  current = next;
  generation++;
}
