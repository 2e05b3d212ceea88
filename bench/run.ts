/**
 * `npm run bench`: scheduling throughput. Not part of `npm test`.
 *   (a) Karpenter's benchmark shape at 100 … 20k pods
 *   (b) the bundled catalog, 3 zones, spot + on-demand, a realistic mix of deployments
 *   (c) 40k pending pods beside 2k existing nodes
 *   storm: issue #28's interruption storm on the simulator (bench/storm.ts; minutes, run only when asked)
 * Usage: npm run bench [-- a|b|c|storm ...]
 * Also, not in the default run (minutes): `npm run bench -- sim [nodes …]`, the simulator's growth (./sim-growth.ts);
 * `npm run bench -- consolidation [nodes …]`, one disruption pass at 500 / 2,000 / 5,000 nodes (./consolidation.ts);
 * `npm run bench -- scale [nodes …]`, issue #28's scale-5k scenario at 500 / 2,000 / 5,000 nodes (./scale.ts);
 * `npm run bench -- scale-steady [nodes …]`, a steady hour at that size: nodewright's own monthly bill (./scale.ts);
 * `npm run bench -- deployed-fleet`, the deployed fleet against the LP bound (./deployed-fleet.ts);
 * `npm run bench -- steering`, a scale-in with and without pod-deletion-cost steering (./steering.ts).
 */
import os from 'node:os';
import { diversePods, fakeTypes } from './karpenter-shape';
import { timeSolve, type BenchRow } from './measure';
import { nodePoolFor } from './pools';

export function suiteA(sizes = [100, 1000, 5000, 10000, 20000]): BenchRow[] {
  const types = fakeTypes(400);
  const pool = nodePoolFor('default');
  return sizes.map(
    (n) =>
      timeSolve(
        'a: karpenter shape',
        { pods: diversePods(n), nodePools: [pool], instanceTypes: { default: types }, existingNodes: [], daemonSets: [] },
        n <= 5000 ? 3 : 1,
      ).row,
  );
}

/** The node counts after the suite's name (`npm run bench -- sim 25 50`); undefined: the suite's default sizes. */
function sizesArg(): number[] | undefined {
  const sizes = process.argv
    .slice(3)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  return sizes.length ? sizes : undefined;
}

const machine = () => `machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;

async function main() {
  if (process.argv[2] === 'consolidation') {
    const { suiteConsolidation } = await import('./consolidation');
    console.log(machine());
    console.table(suiteConsolidation(sizesArg()));
    return;
  }
  if (process.argv[2] === 'deployed-fleet') {
    const { suiteDeployedFleet } = await import('./deployed-fleet');
    const rows = await suiteDeployedFleet();
    console.log(machine());
    console.table(rows);
    process.exit(0); // a simulation leaves loopback servers and SDK timers behind
  }
  if (process.argv[2] === 'steering') {
    const { suiteSteering } = await import('./steering');
    const rows = await suiteSteering();
    console.log(machine());
    console.table(rows);
    process.exit(0); // a simulation leaves loopback servers and SDK timers behind
  }
  if (process.argv[2] === 'sim') {
    const { simGrowth } = await import('./sim-growth');
    const rows = simGrowth(sizesArg());
    console.log(machine());
    console.table(rows);
    return;
  }
  if (process.argv[2] === 'scale' || process.argv[2] === 'scale-steady') {
    const { suiteScale } = await import('./scale');
    const { rows, functions } = suiteScale(sizesArg(), process.argv[2] === 'scale' ? '--one' : '--steady');
    console.log(machine());
    console.table(rows);
    for (const [nodes, table] of Object.entries(functions)) {
      console.log(`functions at ${nodes} nodes:`);
      console.table(table);
    }
    return;
  }
  const which = process.argv.slice(2).filter((a) => /^([abc]|storm)$/.test(a));
  const run = which.length ? which : ['a', 'b', 'c'];
  if (run.includes('storm')) {
    const { suiteStorm } = await import('./storm');
    console.table(await suiteStorm());
  }
  const rows: BenchRow[] = [];
  if (run.includes('a')) rows.push(...suiteA());
  if (run.includes('b') || run.includes('c')) {
    const { suiteB, suiteC } = await import('./catalog-suites');
    if (run.includes('b')) rows.push(...suiteB());
    if (run.includes('c')) rows.push(...suiteC());
  }
  console.log(machine());
  if (rows.length > 0) console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
