/**
 * The shipped scenario examples/scenarios/spot-interruptions.yaml runs end to end on the simulator — the production handlers,
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

describe('shipped scenario spot-interruptions', () => {
  it('should provision, interrupt, consolidate and expire in the spot-interruptions scenario without breaking the PDB', async () => {
    // Act
    const r = await run('spot-interruptions');
    // Assess
    clean(r);
    expect(r.nodes.every((n) => n.capacityType === 'spot')).toBe(true);
    expect(r.disruptions.filter((d) => d.reason === 'interrupted').length).toBeGreaterThanOrEqual(2);
    expect(r.nodes.filter((n) => n.interruptedAt !== undefined).every((n) => n.terminatedAt !== undefined && n.terminatedAt - n.interruptedAt! <= 130)).toBe(true);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
