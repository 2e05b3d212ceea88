/** Lambda memory and time in a whole run: an out-of-memory Task as Step Functions sees it, and the per-function summary. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import { COST_MODEL } from '../../shared/sim/runtime/cost';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: function-cost
seed: 5
duration: 5m
objects: |
${objects(nodePool('default', ['{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: 500m}'))}
events:
  - {at: 30s, scale: {deployment: default/web, replicas: 2}}
`;

afterEach(() => {
  delete COST_MODEL.baselineMb.launchNodeClaim;
});

describe('function memory and time in a run', () => {
  it('should fail a Task whose modelled memory exceeds its size with Runtime.OutOfMemory, in a new sandbox each time', async () => {
    // Prepare: launchNodeClaim's sandbox alone is larger than its 512 MB
    COST_MODEL.baselineMb.launchNodeClaim = 600;
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'oom.yaml'));
    // Assess
    const launches = run.executions.filter((e) => e.machine === 'launch');
    expect(launches.length).toBeGreaterThan(0);
    expect(launches[0]).toMatchObject({ status: 'FAILED', error: 'Runtime.OutOfMemory' });
    const f = run.functions.launchNodeClaim;
    expect(f.memorySizeMb).toBe(512);
    expect(f.peakMemoryMb).toBeGreaterThanOrEqual(600);
    expect(f.outOfMemory).toBe(f.invocations);
    expect(run.controller.lambda.functions.launchNodeClaim.coldStarts).toBe(f.invocations);
    expect(run.nodes.filter((n) => n.nodePool === 'default')).toHaveLength(0);
  }, 120_000);

  it('should report each function’s peak memory, longest duration and Kubernetes traffic against its size and timeout', async () => {
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'cost.yaml'));
    // Assess
    expect(run.final.pendingPods).toBe(0);
    const p = run.functions.provisioner;
    expect(p).toMatchObject({ memorySizeMb: 1024, timeoutSeconds: 90, outOfMemory: 0, timedOut: 0 });
    expect(p.peakMemoryMb).toBeGreaterThanOrEqual(COST_MODEL.baselineMb.default);
    expect(p.memoryRatio).toBeCloseTo(p.peakMemoryMb / 1024, 2);
    expect(p.kubeRequests).toBeGreaterThan(0);
    expect(p.kubeBytesReceived).toBeGreaterThan(p.kubeRequests * 100);
    expect(p.kubeRequestsPerMinute).toBeCloseTo(p.kubeRequests / 5, 1);
    // every invocation takes time now: at least its handler CPU and a round trip
    expect(p.maxDurationSeconds).toBeGreaterThan(0.1);
    expect(run.functions.controller).toMatchObject({ memorySizeMb: 160, timeoutSeconds: 900 });
    expect(run.functions.controller.kubeBytesReceived).toBeGreaterThan(0);
  }, 120_000);

  it('should size the controller with the deployment’s controllerMemorySize parameter (settings), and bill that size', async () => {
    // Prepare: a 5,000-node cluster's controller (docs/controller.md, "Sizing")
    const sized = SCENARIO.replace('duration: 5m', 'duration: 2m\nsettings: {controllerMemorySize: 256}').replace(/events:[\s\S]*$/, '');
    // Act
    const run = await runScenario(parseScenario(sized, 'sized.yaml'));
    // Assess
    expect(run.functions.controller).toMatchObject({ memorySizeMb: 256 });
    expect(run.controller.lambda.functions.controller.memoryMB).toBe(256);
    expect(run.functions.provisioner?.memorySizeMb ?? 1024).toBe(1024);
    expect(() => parseScenario(SCENARIO.replace('duration: 5m', 'duration: 5m\nsettings: {controllerMemorySize: 100}'), 'small.yaml')).toThrow(
      /settings\.controllerMemorySize/,
    );
  }, 120_000);

  it('should count the invocations that ran into their timeout', async () => {
    // Prepare: every provisioner invocation in the first minute times out
    const faulty = `${SCENARIO}faults:\n  - {at: 0s, for: 60s, target: lambda:provisioner, kind: timeout}\n`;
    // Act
    const run = await runScenario(parseScenario(faulty, 'timeouts.yaml'));
    // Assess
    expect(run.functions.provisioner.timedOut).toBeGreaterThan(0);
    expect(run.functions.provisioner.timedOut).toBeLessThan(run.functions.provisioner.invocations);
    expect(run.final.pendingPods).toBe(0);
  }, 120_000);
});
