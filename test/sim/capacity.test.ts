import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: insufficient-capacity
seed: 5
duration: 10m
objects: |
${objects(nodePool('spot', ['{key: karpenter.sh/capacity-type, operator: In, values: [spot]}', '{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: 500m}'))}
events:
  - {at: 0s, unavailable: {instanceType: m5.large, capacityType: spot, for: 4m}}
  - {at: 0s, unavailable: {instanceType: m5.xlarge, capacityType: spot, for: 4m}}
  - {at: 30s, scale: {deployment: default/web, replicas: 2}}
`;

describe('simulated insufficient capacity', () => {
  it('should fail the launch with the real ICE codes, mark the offerings, and launch once capacity returns', async () => {
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'ice.yaml'));
    // Assess
    const launches = run.executions.filter((e) => e.machine === 'launch');
    expect(launches[0]).toMatchObject({ status: 'FAILED', error: 'NodeClaimLaunchFailed' });
    expect(launches[0].tasks).toContain('markOfferingUnavailable');
    const launched = run.nodes.filter((n) => n.nodePool === 'spot');
    expect(launched.length).toBeGreaterThan(0);
    expect(launched.every((n) => n.launchedAt >= 240 && n.capacityType === 'spot')).toBe(true);
    expect(run.final).toEqual({ nodes: launched.length, pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(run.pods.maxPendingSeconds).toBeGreaterThan(200);
  }, 120_000);
});
