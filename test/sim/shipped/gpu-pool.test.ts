/**
 * The shipped scenario examples/scenarios/gpu-pool.yaml runs end to end on the simulator — the production handlers,
 * adapters and state machines — with assertions on its JSON summary.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario, type SimulationResult } from '../../../shared/sim';

const run = async (name: string): Promise<SimulationResult> => {
  const file = new URL(`../../../examples/scenarios/${name}.yaml`, import.meta.url);
  return runScenario(parseScenario(readFileSync(file, 'utf8'), `${name}.yaml`));
};

const clean = (r: SimulationResult) => {
  expect(r.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: expect.any(Number) });
  expect(r.final.orphanInstances).toBe(0);
  expect(r.final.leakedNodeClaims).toBe(0);
};
const MINUTES = 60;

describe('shipped scenario gpu-pool', () => {
  it('should put only the tolerating GPU pod on a GPU node and remove that node after the job', async () => {
    const r = await run('gpu-pool');
    clean(r);
    const gpu = r.nodes.filter((n) => n.nodePool === 'gpu');
    expect(gpu.length).toBeGreaterThanOrEqual(1);
    expect(gpu.every((n) => /^(p|g)\d/.test(n.instanceType))).toBe(true);
    expect(gpu.every((n) => n.terminatedAt !== undefined && n.terminatedAt > 15 * MINUTES)).toBe(true);
    expect(r.nodes.filter((n) => n.nodePool === 'general').length).toBeGreaterThanOrEqual(1);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
