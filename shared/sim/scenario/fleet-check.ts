/**
 * A scenario's `fleet` checked against its objects and the catalog before anything runs: each problem names the
 * entry's field (`fleet.N.<field>`). What is checked is what would stop nodewright from ever having launched that
 * node: an unknown NodePool or type, a type, zone or capacity type the pool's requirements exclude, a spot entry
 * for a type AWS does not sell as spot, and a fleet beyond the pool's limits.
 */
import * as z from '../../core/zod';
import { buildInstanceTypes } from '../../core/instance-types/build';
import { soldAsSpot } from '../../core/instance-types/offerings';
import type { CatalogEntry } from '../../core/instance-types/types';
import type { NodePool } from '../../core/model/karpenter';
import { Label } from '../../core/model/labels';
import { nodePoolFromKube } from '../../core/model/from-kube';
import { Requirements } from '../../core/scheduling/requirements';
import { typeMatches } from '../../core/scheduling/template';
import type { KubeObject } from '../kube/types';

/** The most nodes a scenario may start with (all entries together). */
const MAX_FLEET_NODES = 20_000;

export const FleetEntrySchema = z.object({
  nodePool: z.string().check(z.minLength(1)),
  instanceType: z.string().check(z.minLength(1)),
  capacityType: z._default(z.enum(['spot', 'on-demand']), 'on-demand'),
  count: z.number().check(z.int(), z.gte(1, 'count must be at least 1'), z.lte(MAX_FLEET_NODES, `count must be at most ${MAX_FLEET_NODES}`)),
  /** Every node in this zone; default: the zones the pool allows, round-robin. */
  zone: z.optional(z.string().check(z.minLength(1))),
  /** Who launched these nodes: nodewright, or a Karpenter that ran before it (its names, hashes and marks; adoption). */
  launchedBy: z._default(z.enum(['nodewright', 'karpenter']), 'nodewright'),
});

export type FleetEntry = z.infer<typeof FleetEntrySchema>;

/** The zones an entry's nodes go to, round-robin: its `zone`, else the scenario's zones the pool allows. */
export function fleetZones(entry: Pick<FleetEntry, 'zone'>, pool: Pick<NodePool, 'template'>, zones: readonly string[]): string[] {
  const allowed = Requirements.fromNodeSelector(pool.template.requirements).get(Label.zone);
  return (entry.zone ? [entry.zone] : zones).filter((z) => zones.includes(z) && (!allowed || allowed.has(z)));
}

/** The pool's first requirement that the type does not meet, as `key operator values`. */
function excludingRequirement(pool: NodePool, type: Parameters<typeof typeMatches>[0]): string | undefined {
  const r = pool.template.requirements.find((req) => !typeMatches(type, Requirements.fromNodeSelector([req])));
  return r ? `${r.key} ${r.operator}${r.values ? ` [${r.values.join(', ')}]` : ''}` : undefined;
}

function entryProblems(
  e: FleetEntry,
  at: string,
  pool: NodePool,
  opts: { region: string; zones: readonly string[]; catalog: ReadonlyMap<string, CatalogEntry> },
): { problems: string[]; capacity?: Record<string, number> } {
  const entry = opts.catalog.get(e.instanceType);
  if (!entry) return { problems: [`${at}.instanceType: unknown instance type "${e.instanceType}" (not in the catalog)`] };
  const problems: string[] = [];
  const [type] = buildInstanceTypes([entry], { region: opts.region, zones: [...opts.zones] });
  const excluded = excludingRequirement(pool, type);
  if (excluded) problems.push(`${at}.instanceType: ${e.instanceType} is excluded by NodePool "${pool.name}"'s requirement ${excluded}`);
  const capacityTypes = Requirements.fromNodeSelector(pool.template.requirements).get(Label.capacityType);
  if (capacityTypes && !capacityTypes.has(e.capacityType))
    problems.push(`${at}.capacityType: NodePool "${pool.name}"'s requirements do not allow ${e.capacityType}`);
  else if (e.capacityType === 'spot' && !soldAsSpot(entry)) problems.push(`${at}.capacityType: ${e.instanceType} is not sold as spot`);
  if (e.zone && !opts.zones.includes(e.zone)) problems.push(`${at}.zone: ${e.zone} is not one of the scenario's zones (${opts.zones.join(', ')})`);
  else if (fleetZones(e, pool, opts.zones).length === 0)
    problems.push(`${at}.zone: NodePool "${pool.name}"'s requirements allow none of ${e.zone ?? `the scenario's zones (${opts.zones.join(', ')})`}`);
  return { problems, capacity: type.capacity };
}

/** Every problem of the fleet, `fleet.N.<field>: …`; none when it could have been launched by nodewright as given. */
export function fleetProblems(
  fleet: readonly FleetEntry[],
  objects: readonly KubeObject[],
  opts: { region: string; zones: readonly string[]; catalog: readonly CatalogEntry[] },
): string[] {
  if (fleet.length === 0) return [];
  const pools = new Map<string, NodePool>();
  for (const o of objects) if (o.kind === 'NodePool' && o.metadata?.name) pools.set(o.metadata.name, nodePoolFromKube(o as never));
  const classes = new Set(objects.filter((o) => o.kind === 'EC2NodeClass').map((o) => o.metadata?.name));
  const catalog = new Map(opts.catalog.map((e) => [e.name, e]));
  const problems: string[] = [];
  const used = new Map<string, Record<string, number>>();
  const total = fleet.reduce((n, e) => n + e.count, 0);
  if (total > MAX_FLEET_NODES) problems.push(`fleet: ${total} nodes in all; at most ${MAX_FLEET_NODES}`);
  fleet.forEach((e, i) => {
    const at = `fleet.${i}`;
    const pool = pools.get(e.nodePool);
    if (!pool) return void problems.push(`${at}.nodePool: no NodePool "${e.nodePool}" in the scenario's objects`);
    if (!classes.has(pool.template.nodeClassRef.name))
      return void problems.push(`${at}.nodePool: its EC2NodeClass "${pool.template.nodeClassRef.name}" is not in the scenario's objects`);
    const checked = entryProblems(e, at, pool, { ...opts, catalog });
    problems.push(...checked.problems);
    if (!checked.capacity) return;
    const usage = used.get(pool.name) ?? {};
    used.set(pool.name, usage);
    for (const k of Object.keys(pool.limits)) {
      const before = usage[k] ?? 0;
      usage[k] = before + e.count * (k === 'nodes' ? 1 : (checked.capacity[k] ?? 0));
      if (usage[k] > pool.limits[k] && before <= pool.limits[k])
        problems.push(`${at}.count: the fleet of NodePool "${pool.name}" exceeds its limit on ${k} (${usage[k]} > ${pool.limits[k]})`);
    }
  });
  return problems;
}
