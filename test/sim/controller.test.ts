/**
 * The controller on the simulator, as deployed: real client-node watch streams against the fake API server, the
 * lease in the simulated table, Lambda Invoke of the simulated provisioner. Pods appear at odd seconds; the
 * watch is dropped, refused with 500s, or answered 410 Gone — the pod still reaches CreateFleet in seconds,
 * and exactly once.
 */
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';

import { runFor as runWorldFor } from './fixtures/time';
import { applyObjects } from '../../shared/sim/scenario/events';
import type { KubeObject } from '../../shared/sim/kube/types';
import type { FaultSpec } from '../../shared/sim/faults';
import { NODE_CLASS, deployment, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: controller
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS)}
`;

describe('the controller on the simulator', () => {
  let world: SimWorld;

  const runFor = (seconds: number) => runWorldFor(world, seconds);

  /** A deployment of `replicas` 1-CPU pods, created at `atSeconds` (virtual, since the start). */
  function scaleUpAt(name: string, atSeconds: number, replicas = 2): void {
    const obj = parse(deployment(name, 'pause', '{cpu: "1"}')) as KubeObject & { spec: { replicas: number } };
    obj.spec.replicas = replicas;
    world.clock.at(world.clock.startMs + atSeconds * 1000, () => void world.api.apply(obj));
  }

  const launches = () => [...world.ec2.instances.values()].map((i) => (i.launchTimeMs - world.clock.startMs) / 1000).sort((a, b) => a - b);

  async function start(faults: FaultSpec[] = []): Promise<void> {
    const scenario = parseScenario(SCENARIO, 'controller.yaml');
    world = await worldForScenario(scenario, { faults });
    applyObjects(world, scenario.objects);
  }

  afterEach(async () => {
    await world?.close();
  });

  // Bounds include cold starts: the provisioner's and LaunchNodeClaim's sandboxes each spend 1 s of INIT and
  // build their dependencies when no warm one is free (simulated as in Lambda).
  it('should reach CreateFleet within 5 s of pods that appear at odd seconds, twice in one controller lifetime', async () => {
    // Prepare
    await start();
    scaleUpAt('a', 37.3);
    scaleUpAt('b', 311.7, 40);
    // Act
    await runFor(400);
    // Assess
    const [first, ...rest] = launches();
    expect(first - 37.3).toBeGreaterThan(0);
    expect(first - 37.3).toBeLessThanOrEqual(5);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest[0] - 311.7).toBeLessThanOrEqual(5);
  }, 60_000);

  it('should watch again after every stream is dropped and still launch once, within 15 s', async () => {
    // Prepare
    await start();
    world.clock.at(world.clock.startMs + 50_000, () => world.api.dropWatches());
    scaleUpAt('a', 50.2);
    // Act
    await runFor(120);
    // Assess
    expect(launches()).toHaveLength(1);
    expect(launches()[0] - 50.2).toBeLessThanOrEqual(15);
  }, 60_000);

  it('should recover from an API server answering 500 to every request for 20 s (watches dropped) within 15 s of the outage, with one launch', async () => {
    // Prepare
    await start([{ at: 30, for: 20, target: 'kube-api', kind: 'error' }]);
    world.clock.at(world.clock.startMs + 30_000, () => world.api.dropWatches());
    scaleUpAt('a', 35.5);
    // Act
    await runFor(120);
    // Assess
    expect(launches()).toHaveLength(1);
    expect(launches()[0]).toBeGreaterThanOrEqual(50);
    expect(launches()[0] - 50).toBeLessThanOrEqual(15);
  }, 60_000);

  it('should recover from an API server that answers nothing for 40 s (watches dropped, every request hung) within 30 s of its end, with one launch', async () => {
    // Prepare
    await start([{ at: 30, for: 40, target: 'kube-api', kind: 'hang' }]);
    world.clock.at(world.clock.startMs + 30_000, () => world.api.dropWatches());
    scaleUpAt('a', 35.5);
    // Act
    await runFor(180);
    // Assess: the requests were aborted by their own timeouts (virtual time moved on), the watches re-made
    expect(world.faults.injected.filter((f) => f.kind === 'hang').length).toBeGreaterThan(2);
    expect(launches()).toHaveLength(1);
    expect(launches()[0]).toBeGreaterThanOrEqual(70);
    expect(launches()[0] - 70).toBeLessThanOrEqual(30);
  }, 60_000);

  it('should hand over to the next invocation with no gap: a pod at the hand-over second still launches within 7 s (three cold starts)', async () => {
    // Prepare: the first controller holds 0–840 s; the successor waits from 780 s and takes over.
    await start();
    scaleUpAt('a', 840.4);
    // Act
    await runFor(900);
    // Assess
    const starts = world.invocations.filter((i) => i.functionKey === 'controller');
    expect(starts.length).toBeGreaterThan(10);
    expect(launches()).toHaveLength(1);
    expect(launches()[0] - 840.4).toBeLessThanOrEqual(7);
  }, 120_000);
});
