/**
 * `nodewright snapshot --kubeconfig FILE [-o scenario.yaml]`: a running cluster written as a scenario (read-only), to
 * replay offline with `nodewright simulate`, change a NodePool in it and compare. `simulate --kubeconfig` replays
 * the cluster at once without writing the file.
 */
import { writeFileSync } from 'node:fs';
import { readClusterObjects } from './live';
import { snapshotScenario, type SnapshotScenario } from './snapshot-scenario';

export interface SnapshotOptions {
  kubeconfig?: string;
  context?: string;
  output?: string;
  name?: string;
  duration?: string;
}

/** Reads the cluster (GETs and LISTs only) and turns it into a scenario; says on stderr what it read and left out. */
export async function snapshotCluster(opts: Omit<SnapshotOptions, 'output'>, err: (s: string) => void): Promise<SnapshotScenario> {
  const live = await readClusterObjects(opts);
  const items = (JSON.parse(live.text) as { items: Parameters<typeof snapshotScenario>[0] }).items;
  const scenario = snapshotScenario(items, {
    server: live.server,
    at: new Date().toISOString(),
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.duration ? { duration: opts.duration } : {}),
  });
  err(
    `read cluster ${live.server}${opts.context ? ` (context ${opts.context})` : ''}: ${live.counts.NodePool} NodePools, ${live.counts.Node} nodes, ` +
      `${live.counts.Pod} pods; nothing was written to it. Scenario: ${scenario.counts.fleetNodes} fleet nodes, ` +
      `${scenario.counts.deployments} workloads of ${scenario.counts.pods} pods`,
  );
  for (const n of scenario.notes) err(`note: ${n}`);
  return scenario;
}

export async function snapshotCommand(opts: SnapshotOptions, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const scenario = await snapshotCluster(opts, err);
  if (opts.output) {
    writeFileSync(opts.output, scenario.text);
    err(`scenario written to ${opts.output}: replay it with nodewright simulate ${opts.output}`);
  } else out(scenario.text);
  return 0;
}
