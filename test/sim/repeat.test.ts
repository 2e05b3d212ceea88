import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const scenario = (name: string, cluster: string, zones: string) => `
name: ${name}
clusterName: ${cluster}
zones: [${zones}]
duration: 4m
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}']), NODE_CLASS, deployment('app', 'pause', '{cpu: "1"}'))}
events:
  - {at: 30s, scale: {deployment: default/app, replicas: 3}}
`;

describe('successive simulations in one process', () => {
  it('should give each run its own world (cluster, zones, clock)', async () => {
    // Act
    const first = await runScenario(parseScenario(scenario('one', 'alpha', 'us-east-1a'), 'one.yaml'));
    const second = await runScenario(parseScenario(scenario('two', 'beta', 'us-east-1c'), 'two.yaml'));
    // Assess
    for (const run of [first, second]) {
      expect(run.nodes.length).toBeGreaterThan(0);
      expect(run.final).toEqual(expect.objectContaining({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 }));
      expect(run.invocationErrors).toEqual([]);
      expect(run.nodes[0].launchedAt).toBeLessThan(70);
    }
    expect(first.nodes.every((n) => n.zone === 'us-east-1a')).toBe(true);
    expect(second.nodes.every((n) => n.zone === 'us-east-1c')).toBe(true);
  }, 120_000);
});
