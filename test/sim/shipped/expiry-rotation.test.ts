/**
 * The shipped scenario examples/scenarios/expiry-rotation.yaml runs end to end on the simulator — the production handlers,
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

describe('shipped scenario expiry-rotation', () => {
  it('should rotate every node past expireAfter and keep the deployment at replicas - 1 ready or better', async () => {
    const r = await run('expiry-rotation');
    clean(r);
    expect(r.disruptions.filter((d) => d.reason === 'expired').length).toBeGreaterThanOrEqual(6);
    expect(r.nodes.filter((n) => n.terminationReason !== undefined && /expire/i.test(n.terminationReason)).length).toBeGreaterThanOrEqual(6);
    expect(r.pods.minReadyAfterRollout['default/app']).toBeGreaterThanOrEqual(5);
    expect(r.final.pendingPods).toBe(0);
  }, 300_000);
});
