/** The world a scenario describes: its cluster name, region, zones, seed and node startup, and subnets tagged for its objects. */
import { deployedFor } from './events';
import type { Scenario } from './schema';
import { createWorld, type SimWorld, type WorldOptions } from './world';

export function worldForScenario(scenario: Scenario, extra: Partial<WorldOptions> = {}): Promise<SimWorld> {
  return createWorld({
    clusterName: scenario.clusterName,
    region: scenario.region,
    zones: scenario.zones,
    seed: scenario.seed,
    nodeStartupSeconds: scenario.settings.nodeStartupSeconds,
    ...deployedFor(scenario.objects),
    ...(scenario.settings.controllerMemorySize ? { controllerMemorySize: scenario.settings.controllerMemorySize } : {}),
    ...extra,
  });
}
