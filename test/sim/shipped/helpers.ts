/** Runs a shipped scenario (examples/scenarios/<name>.yaml) and checks what every scenario must keep. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseScenario, runScenario, type SimulationResult } from '../../../shared/sim';

export const MINUTES = 60;

export async function runShipped(name: string): Promise<SimulationResult> {
  const file = new URL(`../../../examples/scenarios/${name}.yaml`, import.meta.url);
  return runScenario(parseScenario(readFileSync(file, 'utf8'), `${name}.yaml`));
}

/** No PDB or do-not-disrupt violation, no orphan instance, no leaked NodeClaim. */
export function expectClean(r: SimulationResult): void {
  expect(r.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: expect.any(Number) });
  expect(r.final.orphanInstances).toBe(0);
  expect(r.final.leakedNodeClaims).toBe(0);
}
