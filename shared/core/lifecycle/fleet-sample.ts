/** The fleet's $/h in the audit log, every 15 minutes per container (disruption passes write it). */
import type { DisruptionInput } from '../disruption';
import { fleetCost } from '../metrics/record';
import { ownFleetCost } from '../provisioning/own-fleet';
import type { LifecycleDeps } from './deps';

/** The last fleet sample's time, per deployment (container): one every FLEET_SAMPLE_MS. */
const lastFleetSample = new WeakMap<object, number>();
const FLEET_SAMPLE_MS = 15 * 60_000;

/**
 * The fleet's $/h every 15 minutes (per container), in the audit log (`nodewright audit --shadow` compares a shadow
 * run's decisions with it). Returns true when it wrote a record.
 */
export async function writeFleetSample(deps: Pick<LifecycleDeps, 'clock' | 'store'>, input: DisruptionInput, shadow: boolean): Promise<boolean> {
  const now = deps.clock.now();
  const last = lastFleetSample.get(deps.store);
  if (last !== undefined && now - last < FLEET_SAMPLE_MS) return false;
  lastFleetSample.set(deps.store, now);
  const { perHour, nodes } = fleetCost(input.snapshot, input.instanceTypes);
  const own = shadow ? ownFleetCost(input.snapshot, input.instanceTypes) : undefined;
  const detail = { perHour, nodes, ...(own ? { ownPerHour: own.perHour, ownNodes: own.nodes } : {}) };
  await deps.store.audit({ at: now, kind: 'disruption', action: 'fleet', detail });
  return true;
}
