/**
 * `npm run demo`: the seed walkthrough on the embedded default. Until the simulator lands, it plans
 * `examples/inflate.yaml` with `inflate` at 5 and at 12 replicas and prints what would be launched.
 */
import { fileURLToPath } from 'node:url';
import { workloadPods } from '../shared/core/model/manifests';
import { readManifests, runPlan } from './plan';
import { renderPlanTable } from './render';

export const EXAMPLE = fileURLToPath(new URL('../examples/inflate.yaml', import.meta.url));

export async function demoCommand(out: (s: string) => void, _err: (s: string) => void): Promise<number> {
  const set = readManifests([EXAMPLE]);
  const inflate = set.deployments.find((d) => d.name === 'inflate');
  if (!inflate) throw new Error('examples/inflate.yaml has no inflate deployment');
  for (const replicas of [5, 12]) {
    const pods = [...set.pods.filter((p) => p.owner?.name !== inflate.name && !p.name.startsWith(`${inflate.name}-`)), ...workloadPods(inflate, replicas)];
    const { json } = runPlan({ ...set, pods }, { region: 'us-east-1' });
    out(`\n== kubectl scale deployment inflate --replicas ${replicas} ==\n`);
    out(renderPlanTable(json));
  }
  return 0;
}
