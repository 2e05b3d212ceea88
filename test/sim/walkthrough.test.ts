import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, runScenario, type SimulationRun } from '../../shared/sim';
import { loadDefinition, taskBindings } from '../../shared/sim/sfn';

const FIXTURE = resolve(__dirname, 'fixtures/walkthrough.yaml');

describe('simulated walkthrough (NodePool + inflate 0→5→12→5→1→0 + one spot interruption)', () => {
  let run: SimulationRun;

  beforeAll(async () => {
    // Prepare
    const scenario = parseScenario(readFileSync(FIXTURE, 'utf8'), FIXTURE);
    // Act
    run = await runScenario(scenario);
  }, 120_000);

  it('should launch nodes for the pending pods and bind every pod', () => {
    // Assess
    expect(run.nodes.length).toBeGreaterThanOrEqual(2);
    const first = run.nodes[0];
    expect(first.launchedAt).toBeGreaterThanOrEqual(60);
    expect(first.launchedAt).toBeLessThan(75);
    expect(first.readyAt).toBeDefined();
    expect(run.events.some((e) => e.message === 'launched nodeclaim' && e.fields.nodeclaim === first.nodeClaim)).toBe(true);
    expect(run.pods.total).toBeGreaterThanOrEqual(12);
    expect(run.pods.maxPendingSeconds).toBeLessThan(180);
    expect(run.timeline.some((p) => p.pendingPods === 0 && p.nodes >= 2 && p.t > 300 && p.t < 420)).toBe(true);
  });

  it('should handle the spot interruption with exactly one terminate execution and a replacement', () => {
    // Assess
    const interrupted = run.nodes.filter((n) => n.interruptedAt !== undefined);
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0].capacityType).toBe('spot');
    expect(interrupted[0].terminatedAt).toBeGreaterThanOrEqual(420);
    expect(interrupted[0].terminatedAt).toBeLessThanOrEqual(420 + 130);
    const terminates = run.executions.filter((e) => e.machine === 'terminate' && e.startedAt >= 420 && e.startedAt < 420 + 120);
    expect(terminates).toHaveLength(1);
    expect(terminates[0].status).toBe('SUCCEEDED');
    // Acted on within the queue's batching window (1 s) and the interruption function's own time (its reads, DescribeInstances) of the warning at 420 s.
    expect(run.disruptions.filter((d) => d.reason === 'interrupted')).toEqual([expect.objectContaining({ nodes: [interrupted[0].name] })]);
    expect(run.disruptions.find((d) => d.reason === 'interrupted')!.t).toBeLessThanOrEqual(424);
    // The replacement is requested with the warning, before any eviction.
    expect(run.nodes.some((n) => n.launchedAt >= 420 && n.launchedAt <= 427)).toBe(true);
    expect(run.violations.podsLost).toBe(0);
  });

  it('should remove the nodes left empty once inflate is scaled to 0', () => {
    // Assess
    expect(run.disruptions.some((d) => d.reason === 'empty' && d.t > 960)).toBe(true);
    expect(run.final.nodes).toBe(0);
    expect(run.cost.perHourAtEnd).toBe(0);
  });

  it('should leave no orphan instance, no leaked NodeClaim and no pending pod', () => {
    // Assess
    expect(run.final).toEqual(expect.objectContaining({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 }));
    expect(run.invocationErrors).toEqual([]);
    expect(run.cost.total).toBeGreaterThan(0);
  });

  it('should run the Task handlers the ASL files name, and only those', () => {
    // Assess
    for (const e of run.executions) {
      const keys = new Set(taskBindings(loadDefinition(e.machine as 'launch')).map((b) => b.functionKey));
      expect(e.tasks.length).toBeGreaterThan(0);
      for (const key of e.tasks) expect(keys.has(key)).toBe(true);
    }
    expect(run.executions.filter((e) => e.machine === 'launch').every((e) => e.status === 'SUCCEEDED')).toBe(true);
  });
});
