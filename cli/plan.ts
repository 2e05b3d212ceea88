/** `nodewright plan`: read manifests, plan offline, print a table or the JSON contract. */
import { readFileSync } from 'node:fs';
import { loadCatalog } from '../shared/catalog';
import { parseInstanceTypesFile } from '../shared/core/instance-types/custom';
import type { InstanceType } from '../shared/core/instance-types/types';
import type { EC2NodeClass } from '../shared/core/model/karpenter';
import { parseManifestFiles, type ManifestSet } from '../shared/core/model/manifests';
import { planOffline, PlanRegionInvalidError, type AwsPlanInputs, type OfflinePlan } from '../shared/core/provisioning/offline-plan';
import { planToJson, type PlanJson } from '../shared/core/provisioning/plan-json';
import type { RepackOptions, RepackReport } from '../shared/core/scheduling/optimize/repack';
import { planCheapest } from '../shared/core/scheduling/optimize/plan-cheapest';
import { fleetJson, optimizationJson } from '../shared/core/provisioning/plan-json';
import { jsonText } from './json-text';
import { renderPlanTable } from './render';
import { readInput } from './live';
import { consolidationJson, disruptionNow } from './consolidation';

export interface PlanCommandOptions {
  file?: string[];
  /** A running cluster to read (live.ts): a kubeconfig file, and/or a context of it (else $KUBECONFIG's current). */
  kubeconfig?: string;
  context?: string;
  instanceTypes?: string;
  region: string;
  zones?: string;
  output: 'table' | 'json';
  /** false: the greedy Karpenter-style plan only (`--no-optimize`). */
  optimize?: boolean;
  regionGiven?: boolean;
  offline?: boolean;
}

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError' as const;
}

export function readManifests(files: string[]): ManifestSet {
  if (files.length === 0) throw new CliUsageError('at least one -f FILE is required');
  return parseManifestFiles(
    files.map((file) => {
      try {
        // Read whole, then decoded: Node 20's readFileSync(file, 'utf8') grows its buffer as it reads (fresh
        // memory page by page): 31 ms against 22 ms for a 2.7 MB file (docs/benchmarks.md).
        return { file, text: readFileSync(file).toString('utf8') };
      } catch (e) {
        throw new CliUsageError(`cannot read ${file}: ${(e as Error).message}`);
      }
    }),
  );
}

/** `--instance-types FILE.json`, read once and built per EC2NodeClass (kubelet, AMI family and block devices apply). */
export function readInstanceTypes(
  file: string | undefined,
  region: string,
  zones: string[] | undefined,
): ((nodeClass: EC2NodeClass | undefined) => InstanceType[]) | undefined {
  if (!file) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliUsageError(`cannot read instance types from ${file}: ${(e as Error).message}`);
  }
  const build = (nodeClass: EC2NodeClass | undefined): InstanceType[] => {
    const types = parseInstanceTypesFile(json, { region, zones: zones ?? ['a', 'b', 'c'].map((z) => `${region}${z}`), nodeClass });
    // --zones restricts explicit offerings too: nothing is planned outside the zones the user allowed.
    if (!zones) return types;
    const allowed = new Set(zones);
    return types.map((t) => ({ ...t, offerings: t.offerings.filter((o) => allowed.has(o.zone)) }));
  };
  // Built once at once: a bad file is refused before anything is planned, whatever the pools.
  const byClass = new Map<EC2NodeClass | undefined, InstanceType[]>([[undefined, build(undefined)]]);
  return (nodeClass) => {
    let types = byClass.get(nodeClass);
    if (!types) byClass.set(nodeClass, (types = build(nodeClass)));
    return types;
  };
}

export function runPlan(set: ManifestSet, opts: Omit<PlanCommandOptions, 'file' | 'output'>): { result: OfflinePlan; json: PlanJson } {
  const result = planResult(set, opts);
  return { result, json: jsonOf(result, opts.instanceTypes !== undefined) };
}

/** The offline plan alone (`plan` re-packs it before it builds the JSON once). */
function planResult(set: ManifestSet, opts: Omit<PlanCommandOptions, 'file' | 'output'>, aws?: AwsPlanInputs): OfflinePlan {
  const zones = opts.zones
    ? opts.zones
        .split(',')
        .map((z) => z.trim())
        .filter(Boolean)
    : undefined;
  const instanceTypes = readInstanceTypes(opts.instanceTypes, opts.region, zones);
  let result: OfflinePlan;
  try {
    result = planOffline(set, { region: opts.region, zones, instanceTypes, catalog: loadCatalog(), ...(aws ? { aws } : {}) });
  } catch (e) {
    if (e instanceof PlanRegionInvalidError) throw new CliUsageError(e.message);
    throw e;
  }
  return result;
}

function jsonOf(result: OfflinePlan, customTypes: boolean, report?: RepackReport): PlanJson {
  // Registered nodes, in-flight NodeClaims and static nodes still to launch alike can receive pods; all are listed.
  const json = planToJson(result.plan, result.pending.length, result.input.existingNodes, customTypes ? undefined : result.pricing, result.staticPools);
  if (report) json.optimization = optimizationJson(report, json.summary.pricePerHour);
  const fleet = fleetJson(result.input.existingNodes, result.input.instanceTypes);
  if (fleet) json.fleet = fleet;
  return json;
}

/**
 * Re-packs the plan's movable pods toward the cheapest fleet with the deployed provisioner's planner
 * (shared/core/scheduling/optimize/plan-cheapest.ts). HiGHS is loaded only when a group needs it, so small plans
 * start as fast as before.
 */
export async function optimizeResult(result: OfflinePlan, options: RepackOptions = {}): Promise<RepackReport | undefined> {
  const lp = async () => (await import('../shared/adapters/lp/highs')).HighsLpSolver.create();
  const { plan, report } = await planCheapest(result.input, lp, options, result.plan);
  result.plan = plan;
  return report;
}

export async function planCommand(opts: PlanCommandOptions, out: (s: string | Iterable<string>) => void, err: (s: string) => void): Promise<number> {
  const { set, region, aws } = await readInput(opts, err);
  const result = planResult(set, { ...opts, region }, aws);
  const report = opts.optimize === false ? undefined : await optimizeResult(result);
  const json = jsonOf(result, opts.instanceTypes !== undefined, report);
  const disruption = disruptionNow(set, result, Date.now());
  if (disruption) json.consolidation = consolidationJson(disruption);
  for (const w of result.warnings) err(`warning: ${w}`);
  out(opts.output === 'json' ? jsonText(json) : renderPlanTable(json));
  return 0;
}
