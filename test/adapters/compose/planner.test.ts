/**
 * Issue #29 item 1, one planner: the deployed provisioner's planner and `nodewright plan` run the same code, HiGHS
 * included, so the fleet a deployed nodewright launches for a batch is the fleet `plan` prints for it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { optimizeResult, runPlan } from '../../../cli/plan';
import { containerLp, deployedPlanner } from '../../../shared/adapters/compose/parts/planner';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';
import { parseManifestFiles } from '../../../shared/core/model/manifests';
import type { Plan } from '../../../shared/core/scheduling/types';

/** The seed walkthrough's NodePool and EC2NodeClass with the inflate Deployment at `replicas` (and memory asked). */
function inflate(replicas: number) {
  const text = readFileSync('examples/inflate.yaml', 'utf8')
    .replace('replicas: 5', `replicas: ${replicas}`)
    .replace(/cpu: 1\b/, 'cpu: 1\n              memory: 3Gi');
  return runPlan(parseManifestFiles([{ text, file: 'inflate.yaml' }]), { region: 'us-east-1' }).result;
}

const fleet = (p: Plan) => p.nodeClaims.map((c) => `${c.instanceTypes[0].name}:${c.pods.length}`).sort();

describe('the deployed planner', () => {
  it('should launch for a large batch the fleet `nodewright plan` prints, packed with the LP', async () => {
    // Prepare: 200 pods, a group large enough for the LP
    const result = inflate(200);
    let loads = 0;
    const load = containerLp({ warn: () => undefined });
    // Act: the MIP's time limit lifted on both sides, so neither answer depends on how busy the machine is
    const exact = { mipSeconds: 60 };
    const deployed = await deployedPlanner(() => ((loads += 1), load()), exact).solve(result.input);
    const report = await optimizeResult(result, exact);
    // Assess
    expect(loads).toBe(1);
    expect(report?.groups[0]).toMatchObject({ pods: 200, kept: 'optimized' });
    expect(fleet(deployed)).toEqual(fleet(result.plan));
    expect(deployed.nodeClaims.reduce((s, c) => s + c.price, 0)).toBeCloseTo(report?.groups[0].optimizedPerHour ?? NaN, 9);
  });

  it('should pack with the heuristic, and say so once, in a container that cannot load HiGHS', async () => {
    // Prepare: the WASM missing, as in a bundle packaged without it
    const load = vi.spyOn(HighsLpSolver, 'load').mockRejectedValue(new Error("ENOENT: no such file or directory, open '/var/task/highs.wasm'"));
    const warnings: string[] = [];
    const planner = deployedPlanner(containerLp({ warn: (m: string) => warnings.push(m) }));
    try {
      // Act: two rounds in the same container
      const first = await planner.solve(inflate(200).input);
      const second = await planner.solve(inflate(120).input);
      // Assess
      expect(first.nodeClaims.flatMap((c) => c.pods)).toHaveLength(200);
      expect(second.nodeClaims.flatMap((c) => c.pods)).toHaveLength(120);
      expect(load).toHaveBeenCalledTimes(1);
      expect(warnings).toEqual(['could not load the LP solver; large groups are packed by the heuristic']);
    } finally {
      load.mockRestore();
    }
  });
});
