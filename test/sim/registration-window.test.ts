import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

// Nodes here take 90 s to register, so the garbage collection run at t=120 s meets a launched, not yet
// registered NodeClaim (as it meets disruption replacements in examples/scenarios/walkthrough.yaml at 1515 s).
const SCENARIO = `
name: registration-window
duration: 5m
settings: {nodeStartup: 90s}
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}']), NODE_CLASS, deployment('app', 'pause', '{cpu: "1"}'))}
events:
  - {at: 30s, scale: {deployment: default/app, replicas: 2}}
`;

describe('a node that registers slowly', () => {
  // Regression: garbage collection once took claim times (seconds) for milliseconds, so every launched but
  // not yet registered NodeClaim looked decades old and was ended at the next run.
  it('should keep a launched NodeClaim until its 15-minute registration deadline', async () => {
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'registration-window.yaml'));
    // Assess
    expect(run.events.filter((e) => e.message.includes('registration timed out'))).toEqual([]);
    expect(run.executions.filter((e) => e.machine === 'launch').map((e) => e.status)).toEqual(['SUCCEEDED']);
    expect(run.final.pendingPods).toBe(0);
  }, 120_000);
});
