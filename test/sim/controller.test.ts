/**
 * The controller on the simulator, as deployed: real watch streams against the fake API server, the lease in the
 * simulated table, Lambda Invoke of the simulated provisioner. Pods appear at odd seconds; the watch is dropped,
 * refused with 500s, hung, or answered 410 Gone after a compaction, DynamoDB throttles or hangs — the pod still
 * reaches CreateFleet in seconds, exactly once, and pods deleted meanwhile are forgotten.
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

/** How soon after DynamoDB answers again a pod that appeared during the throttle reaches CreateFleet (s). */
const LAUNCH_AFTER_THROTTLE_S = 10;

describe('the controller on the simulator', () => {
  let world: SimWorld;

  const runFor = (seconds: number) => runWorldFor(world, seconds);

  /** A deployment of `replicas` pods (1 CPU each unless `requests` says), applied at `atSeconds` (virtual, since the start). */
  function scaleUpAt(name: string, atSeconds: number, replicas = 2, requests = '{cpu: "1"}'): void {
    const obj = parse(deployment(name, 'pause', requests)) as KubeObject & { spec: { replicas: number } };
    obj.spec.replicas = replicas;
    world.clock.at(world.clock.startMs + atSeconds * 1000, () => void world.api.apply(obj));
  }

  const at = (seconds: number, fn: () => void) => world.clock.at(world.clock.startMs + seconds * 1000, fn);
  let logs: { t: number; message: string }[] = [];
  /** Lambda Invokes the controller made (the provisioner's rounds …), by function and virtual second. */
  let invokes: { key: string; t: number; pods?: number }[] = [];
  const invoked = (fn: string, after = 0) => invokes.filter((i) => i.key === fn && i.t >= after).map((i) => i.t);
  /** Provisioner rounds the controller started for pending pods (not the keep-warm rounds, which name none). */
  const roundsForPods = (after = 0) => invokes.filter((i) => i.key === 'provisioner' && i.t >= after && i.pods !== 0).map((i) => i.t);

  const launches = () => [...world.ec2.instances.values()].map((i) => (i.launchTimeMs - world.clock.startMs) / 1000).sort((a, b) => a - b);

  async function start(faults: FaultSpec[] = []): Promise<void> {
    const scenario = parseScenario(SCENARIO, 'controller.yaml');
    logs = [];
    world = await worldForScenario(scenario, { faults, onLog: (l) => void logs.push({ t: l.t, message: l.message }) });
    applyObjects(world, scenario.objects);
    invokes = [];
    const invoke = world.production.invoke.bind(world.production);
    world.production.invoke = (key, event) => {
      const pods = (event as { pods?: unknown } | undefined)?.pods;
      invokes.push({ key, t: world.clock.elapsedSeconds(), ...(typeof pods === 'number' ? { pods } : {}) });
      return invoke(key, event);
    };
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

  it('should keep one controller through a 90 s API server hang (watches dropped, every request hung), and launch within 30 s of its end', async () => {
    // Prepare
    await start([{ at: 30, for: 90, target: 'kube-api', kind: 'hang' }]);
    at(30, () => world.api.dropWatches());
    scaleUpAt('a', 35.5);
    // Act
    await runFor(240);
    // Assess: the watches' connects (each given up after 20 s) held up neither the loop nor the lease
    expect(logs.filter((l) => l.message === 'controller started')).toHaveLength(1);
    expect(logs.filter((l) => /lease (lost|may have expired)/.test(l.message))).toEqual([]);
    expect(launches()).toHaveLength(1);
    expect(launches()[0] - 120).toBeLessThanOrEqual(30);
  }, 120_000);

  it('should forget pods deleted while its watches were down past a compaction (410 Gone): no more provisioner rounds for them', async () => {
    // Prepare: two pods no instance type fits stay pending (rounds retried 10 s → 2 min); at 60 s the watches
    // drop and the API server hangs for 30 s, meanwhile the pods are deleted and etcd compacts.
    await start([{ at: 60, for: 30, target: 'kube-api', kind: 'hang' }]);
    scaleUpAt('huge', 10.5, 2, '{cpu: "500"}');
    at(60, () => world.api.dropWatches());
    scaleUpAt('huge', 70.5, 0, '{cpu: "500"}');
    at(75, () => world.api.compactWatchHistory());
    // Act
    await runFor(600);
    // Assess: rounds while they were pending; none once the controller listed again and saw them gone (only the
    // keep-warm rounds every 4 minutes, which name no pods)
    expect(roundsForPods().filter((t) => t < 60).length).toBeGreaterThan(1);
    expect(roundsForPods(120)).toEqual([]);
    expect(invoked('provisioner', 120).length).toBeLessThanOrEqual(2);
  }, 120_000);

  it('should keep a controller through a 45 s DynamoDB throttle across the hand-over: a pod during it launches once it ends', async () => {
    // Prepare: the first controller holds 0–840 s; DynamoDB refuses every request from 815 s to 860 s.
    await start([{ at: 815, for: 45, target: 'dynamodb', kind: 'throttle' }]);
    scaleUpAt('a', 850.5);
    // Act
    await runFor(960);
    // Assess
    expect(launches()).toHaveLength(1);
    expect(launches()[0] - 860).toBeLessThanOrEqual(LAUNCH_AFTER_THROTTLE_S);
  }, 120_000);

  it('should carry on through a 45 s DynamoDB hang mid-life: a pod during it launches soon after it ends', async () => {
    // Prepare: every DynamoDB request from 300 s to 345 s gets no answer (the SDK's request timeout fires)
    await start([{ at: 300, for: 45, target: 'dynamodb', kind: 'hang' }]);
    scaleUpAt('a', 330.5);
    // Act
    await runFor(480);
    // Assess
    expect(launches()).toHaveLength(1);
    expect(launches()[0] - 345).toBeLessThanOrEqual(LAUNCH_AFTER_THROTTLE_S);
  }, 120_000);

  it('should not list the 2,000 bound pods again at a hand-over: only the pending ones, and a bound pod deleted after it still wakes disruption', async () => {
    // Prepare: 2,000 pods running on a node nodewright does not manage; the pods LISTed by the controller are counted
    await start();
    const pods = world.api.store.typeOf('v1', 'Pod');
    world.api.store.create(world.api.store.typeOf('v1', 'Node'), undefined, {
      metadata: { name: 'static-1' },
      status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { cpu: '4000', memory: '16000Gi', pods: '5000' } },
    });
    for (let i = 0; i < 2000; i++)
      world.api.store.create(pods, 'default', {
        metadata: { name: `web-${i}` },
        spec: { nodeName: 'static-1', containers: [{ name: 'c', image: 'pause' }] },
        status: { phase: 'Running' },
      });
    const listed: { t: number; pods: number }[] = [];
    const handle = world.api.handle.bind(world.api);
    world.api.handle = (req, address) => {
      const out = handle(req, address);
      if (req.method === 'GET' && req.path === '/api/v1/pods' && req.headers?.['user-agent']?.startsWith('nodewright-controller'))
        listed.push({ t: world.clock.elapsedSeconds(), pods: ((out.body as { items?: unknown[] }).items ?? []).length });
      return out;
    };
    at(900, () => world.api.store.delete(pods, 'default', 'web-7'));
    // Act
    await runFor(960);
    // Assess: the successor's LISTs at the hand-over (842 s) carry the pending pods (none) and one pod, for the
    // collection's resourceVersion — not the 2,000 bound pods in 4 pages of 500 (before this change)
    const atHandOver = listed.filter((l) => l.t > 700);
    expect(atHandOver.length).toBeGreaterThan(0);
    expect(atHandOver.reduce((n, l) => n + l.pods, 0)).toBeLessThanOrEqual(1);
    expect(invoked('disruption', 900).length).toBeGreaterThan(0);
  }, 120_000);

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
