/**
 * The shipped scenario examples/scenarios/scheduled-overprovisioning.yaml runs end to end on the simulator — the production handlers,
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

describe('shipped scenario scheduled-overprovisioning', () => {
  it('should have the extra capacity running before the known peak', async () => {
    const r = await run('scheduled-overprovisioning');
    clean(r);
    const atPeak = r.timeline.filter((p) => p.t >= 14 * MINUTES && p.t <= 20 * MINUTES);
    expect(atPeak.length).toBeGreaterThan(0);
    expect(atPeak.every((p) => p.pendingPods === 0)).toBe(true);
    expect(Math.max(...r.timeline.map((p) => p.nodes))).toBeGreaterThan(r.timeline[0].nodes);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
