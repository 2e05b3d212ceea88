/**
 * The shipped scenario examples/scenarios/scale-down-steering.yaml (issue #29 item 5): a Deployment scaled in from
 * 70 to 35 pods on ten nodes, with and without PodDeletionCostManagement, through the production handlers and the
 * simulated ReplicaSet controller (kube's deletion order). The gate turns the same saving into one without evictions.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../../shared/sim';
import { expectClean, runShipped } from './helpers';

describe('shipped scenario scale-down-steering', () => {
  it('should remove the nodes a scale-down emptied without evicting a pod, where without the gate the same saving evicts pods', async () => {
    // Act
    const steered = await runShipped('scale-down-steering');
    const text = readFileSync(new URL('../../../examples/scenarios/scale-down-steering.yaml', import.meta.url), 'utf8');
    const plain = await runScenario(parseScenario(text.replace('PodDeletionCostManagement=true', 'PodDeletionCostManagement=false'), 'plain.yaml'));

    // Assess: five of the ten nodes removed either way, for $1,401.60/month
    expectClean(steered);
    expectClean(plain);
    expect(steered.final.nodes).toBe(5);
    expect(plain.final.nodes).toBe(5);
    expect(steered.consolidation.savedPerMonth).toBeCloseTo(1401.6, 1);
    expect(plain.consolidation.savedPerMonth).toBeCloseTo(1401.6, 1);
    expect(steered.consolidation.podsEvicted).toBe(0);
    expect(plain.consolidation.podsEvicted).toBeGreaterThan(0);
    expect(steered.final.pendingPods).toBe(0);
  }, 300_000);
});
