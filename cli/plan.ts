/** `nodewright plan`: read manifests, plan offline, print a table or the JSON contract. */
import { readFileSync } from 'node:fs';
import { loadCatalog } from '../shared/catalog';
import { parseInstanceTypesFile } from '../shared/core/instance-types/custom';
import type { InstanceType } from '../shared/core/instance-types/types';
import { parseManifestFiles, type ManifestSet } from '../shared/core/model/manifests';
import { planOffline, PlanRegionInvalidError, type OfflinePlan } from '../shared/core/provisioning/offline-plan';
import { planToJson, type PlanJson } from '../shared/core/provisioning/plan-json';
import { renderPlanTable } from './render';

export interface PlanCommandOptions {
  file: string[];
  instanceTypes?: string;
  region: string;
  zones?: string;
  output: 'table' | 'json';
}

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError' as const;
}

export function readManifests(files: string[]): ManifestSet {
  if (files.length === 0) throw new CliUsageError('at least one -f FILE is required');
  return parseManifestFiles(files.map((file) => {
    try {
      return { file, text: readFileSync(file, 'utf8') };
    } catch (e) {
      throw new CliUsageError(`cannot read ${file}: ${(e as Error).message}`);
    }
  }));
}

export function readInstanceTypes(file: string | undefined, region: string, zones: string[] | undefined): InstanceType[] | undefined {
  if (!file) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliUsageError(`cannot read instance types from ${file}: ${(e as Error).message}`);
  }
  const types = parseInstanceTypesFile(json, { region, zones: zones ?? ['a', 'b', 'c'].map((z) => `${region}${z}`) });
  // --zones restricts explicit offerings too: nothing is planned outside the zones the user allowed.
  if (!zones) return types;
  const allowed = new Set(zones);
  return types.map((t) => ({ ...t, offerings: t.offerings.filter((o) => allowed.has(o.zone)) }));
}

export function runPlan(set: ManifestSet, opts: Omit<PlanCommandOptions, 'file' | 'output'>): { result: OfflinePlan; json: PlanJson } {
  const zones = opts.zones ? opts.zones.split(',').map((z) => z.trim()).filter(Boolean) : undefined;
  const instanceTypes = readInstanceTypes(opts.instanceTypes, opts.region, zones);
  let result: OfflinePlan;
  try {
    result = planOffline(set, { region: opts.region, zones, instanceTypes, catalog: loadCatalog() });
  } catch (e) {
    if (e instanceof PlanRegionInvalidError) throw new CliUsageError(e.message);
    throw e;
  }
  // Registered nodes, in-flight NodeClaims and static nodes still to launch alike can receive pods; all are listed.
  return { result, json: planToJson(result.plan, result.pending.length, result.input.existingNodes, instanceTypes ? undefined : result.pricing, result.staticPools) };
}

export function planCommand(opts: PlanCommandOptions, out: (s: string) => void, err: (s: string) => void): number {
  const set = readManifests(opts.file);
  const { result, json } = runPlan(set, opts);
  for (const w of result.warnings) err(`warning: ${w}`);
  out(opts.output === 'json' ? JSON.stringify(json, null, 2) : renderPlanTable(json));
  return 0;
}
