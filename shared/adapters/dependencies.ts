/**
 * The simulator's handle on the functions' containers (shared/adapters/compose): `resetDependencies` binds a new
 * world (its virtual clock, its metrics registry, which sandbox is running), `forgetContainer` drops one
 * reclaimed sandbox. Each function composes its own dependencies (shared/adapters/lambda/deployed.ts); a
 * deployed Lambda never calls these.
 */
import { setDependencyOverrides, type DependencyOverrides } from './overrides';

export { forgetContainer } from './compose/container';
export type { DependencyOverrides } from './overrides';

/** Forgets every built dependency; the next invocation of each function builds its own again with `next`. */
export function resetDependencies(next: DependencyOverrides = {}): void {
  setDependencyOverrides(next);
}
