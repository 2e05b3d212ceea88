/**
 * `node --import tsx bench/instance-types.ts` (add `--cpu-prof` to node for a profile): what a cold sandbox pays to
 * build its instance types as the AWS cloud provider does — every DescribeInstanceTypes answer mapped to a catalog
 * entry (new objects: nothing cached from another sandbox), then buildInstanceTypes for one node class over 3 zones
 * with a spot price per type and zone. Prints CPU ms of the mapping and of the build, and the retained heap of the
 * result (entries + built types) after a full GC. Run with `node --expose-gc`. Not part of `npm test`.
 */
import { performance } from 'node:perf_hooks';
import { toCatalogEntry } from '../shared/adapters/aws/ec2/catalog-mapping';
import { loadCatalog } from '../shared/catalog';
import { buildInstanceTypes } from '../shared/core/instance-types/build';
import { instanceTypeInfo } from '../shared/sim/aws/catalog-info';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const catalog = loadCatalog();
const byName = new Map(catalog.map((c) => [c.name, c]));
// What DescribeInstanceTypes answers (built before the measurement: the SDK's parsing is not ours).
const infos = catalog.map(instanceTypeInfo);
const spotPrices: Record<string, number> = {};
for (const e of catalog) for (const z of ZONES) spotPrices[`${e.name}/${z}`] = (e.onDemandUsdPerHour['us-east-1'] ?? 1) * 0.35;

const rows = [];
const kept: unknown[] = [];
gc();
const start = process.memoryUsage().heapUsed;
for (let round = 0; round < 5; round++) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const entries = infos.map((i) => toCatalogEntry(i, byName.get(i.InstanceType!))!).sort((a, b) => a.name.localeCompare(b.name));
  const t1 = performance.now();
  const types = buildInstanceTypes(entries, { region: 'us-east-1', zones: ZONES, spotPrices });
  const t2 = performance.now();
  kept.push({ entries, types });
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  rows.push({ round, types: types.length, 'map ms': Math.round(t1 - t0), 'build ms': Math.round(t2 - t1), 'retained MB': +(retained / 2 ** 20).toFixed(1) });
}
gc();
const each = (process.memoryUsage().heapUsed - start) / kept.length / 2 ** 20;
console.log(`round 0 is a cold sandbox (cold JIT); later rounds are the same work warm. Retained per build, ${kept.length} kept: ${each.toFixed(1)} MB`);
console.table(rows);
