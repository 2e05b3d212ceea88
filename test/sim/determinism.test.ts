import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: determinism
seed: 3
region: us-east-1
duration: 5m
objects: |
${objects(nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}', '{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: 1500m, memory: 1Gi}'))}
events:
  - {at: 30s, scale: {deployment: default/web, replicas: 7}}
  - {at: 3m, interrupt: {node: any, kind: spot-interruption}}
  - {at: 4m, scale: {deployment: default/web, replicas: 0}}
`;

// Two runs in the same process: the second must not see anything of the first (composition root, caches).
async function runOnce(): Promise<string> {
  return JSON.stringify(await runScenario(parseScenario(SCENARIO, 'determinism.yaml')));
}

describe('simulator determinism', () => {
  it('should give the same JSON for the same scenario and seed', async () => {
    // Act
    const first = await runOnce();
    const second = await runOnce();
    // Assess
    expect(JSON.parse(first).nodes.length).toBeGreaterThan(0);
    expect(second).toEqual(first);
  }, 120_000);
});
