/**
 * Unhealthy nodes and EC2 reboots in the simulator (shared/sim/cluster/node-health.ts, shared/sim/aws/ec2-reboot.ts):
 * the kube side driven directly on virtual time (no functions run), EC2 through the real EC2Client against the mock.
 */
import { DescribeInstancesCommand, EC2Client, RebootInstancesCommand } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../shared/sim';
import type { VirtualClock } from '../../shared/sim/clock';
import type { Ec2World, SimInstance } from '../../shared/sim/aws/ec2-world';
import { rebootSeconds } from '../../shared/sim/aws/ec2-reboot';
import type { NodeHealth } from '../../shared/sim/cluster/node-health';
import { bareCluster, T0 } from './fixtures/bare-cluster';
import { runFor as advance } from './fixtures/time';
import { FakeKubeApi, type KubeObject } from '../../shared/sim/kube';
import { disruptionReason } from '../../shared/sim/scenario/result';
import { NODE_CLASS, nodePool, objects } from './fixtures/objects';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('node health: unhealthy nodes and EC2 reboots', () => {
  let clock: VirtualClock;
  let api: FakeKubeApi;
  let ec2world: Ec2World;
  let health: NodeHealth;
  let close: () => void;
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const nodeType = () => api.store.typeOf('v1', 'Node');
  const podType = () => api.store.typeOf('v1', 'Pod');
  const node = (name: string) => api.store.get(nodeType(), undefined, name);
  const condition = (name: string, type: string): Condition | undefined =>
    ((node(name).status as { conditions?: Condition[] }).conditions ?? []).find((c) => c.type === type);
  const taints = (name: string) => ((node(name).spec?.taints as { key: string; effect: string }[] | undefined) ?? []).map((t) => `${t.key}:${t.effect}`);
  const podsOn = (name: string): KubeObject[] => api.store.list(podType()).items.filter((p) => (p.spec as { nodeName?: string }).nodeName === name);
  const podReady = (p: KubeObject) => ((p.status as { conditions?: Condition[] }).conditions ?? []).find((c) => c.type === 'Ready')?.status;

  const runFor = (seconds: number) => advance({ clock }, seconds);

  beforeEach(async () => {
    ({ clock, api, ec2world, health, close } = await bareCluster({ unmanaged: true }));
  });

  afterEach(() => close());

  const managed = () => [...ec2world.instances.values()].filter((i) => i.clientToken !== 'unmanaged').map((i) => i.privateDnsName);

  it('should break a monitoring agent condition of a Ready NodePool node drawn from the seed, and keep it broken', async () => {
    // Act
    const broken = health.unhealthy({ node: 'any', condition: 'KernelReady', count: 2, fixedBy: 'replace' }, 1);
    const brokenAt = at(clock.now());
    await runFor(600);
    // Assess: two distinct managed nodes, never the one no NodePool launched
    expect(broken).toHaveLength(2);
    expect(new Set(broken).size).toBe(2);
    for (const name of broken) {
      expect(managed()).toContain(name);
      expect(condition(name, 'KernelReady')).toMatchObject({
        status: 'False',
        reason: 'ForkFailedOutOfPIDs',
        message: 'A fork or exec call has failed due to the system being out of process IDs or memory',
        lastTransitionTime: brokenAt,
      });
      expect(condition(name, 'Ready')?.status).toBe('True');
    }
    expect(health.injected).toBe(2);
    // the one left, then none: a node already broken this way is not drawn again
    expect(health.unhealthy({ node: 'any', condition: 'KernelReady', count: 5, fixedBy: 'replace' }, 1)).toEqual(managed().filter((n) => !broken.includes(n)));
    expect(health.unhealthy({ node: 'any', condition: 'KernelReady', count: 1, fixedBy: 'replace' }, 1)).toEqual([]);
  });

  it('should take a node whose kubelet stops posting to Ready Unknown with the unreachable taints after 40 s, its pods left bound', async () => {
    // Prepare
    const name = managed()[0];
    const pods = podsOn(name).map((p) => p.metadata.name);
    // Act
    health.unhealthy({ node: name, condition: 'Ready', count: 1, fixedBy: 'replace' }, 1);
    await runFor(39);
    const during = condition(name, 'Ready')?.status;
    await runFor(1);
    const unknownAt = at(clock.now());
    await runFor(600);
    // Assess
    expect(during).toBe('True');
    expect(condition(name, 'Ready')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastTransitionTime: unknownAt,
    });
    expect(condition(name, 'MemoryPressure')?.status).toBe('Unknown');
    expect(taints(name)).toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    expect(podsOn(name).map((p) => p.metadata.name)).toEqual(pods);
  });

  it('should take a rebooted node NotReady within seconds and Ready again after its reboot time, its pods restarted, the instance running throughout', async () => {
    // Prepare
    const instance = ec2world.instances.values().next().value as SimInstance;
    const name = instance.privateDnsName;
    const seconds = rebootSeconds(ec2world, instance, 1);
    const bootBefore = (node(name).status as { nodeInfo: { bootID: string } }).nodeInfo.bootID;
    const readyStates: string[] = [condition(name, 'Ready')?.status ?? ''];
    const unwatch = api.store.onChange((e) => {
      if (e.resource.resource !== 'nodes' || e.object.metadata.name !== name) return;
      const s = ((e.object.status as { conditions?: Condition[] }).conditions ?? []).find((c) => c.type === 'Ready')?.status ?? '';
      if (readyStates.at(-1) !== s) readyStates.push(s);
    });
    // Act
    await ec2.send(new RebootInstancesCommand({ InstanceIds: [instance.id] }));
    await runFor(5);
    const shuttingDown = { ready: condition(name, 'Ready'), taints: taints(name), pods: podsOn(name).map(podReady) };
    await runFor(seconds - 5);
    const state = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instance.id] }))).Reservations?.[0]?.Instances?.[0]?.State?.Name;
    unwatch();
    // Assess
    expect(seconds).toBeGreaterThanOrEqual(40);
    expect(seconds).toBeLessThanOrEqual(90);
    expect(shuttingDown.ready).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message: 'node is shutting down',
      lastTransitionTime: at(T0 + 32_000 + 2_000),
    });
    expect(shuttingDown.taints).toEqual(['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute']);
    expect(shuttingDown.pods.length).toBeGreaterThan(0);
    expect(shuttingDown.pods.every((s) => s === 'False')).toBe(true);
    // a reboot longer than the lifecycle controller's 40 s grace after the kubelet's last post (at 2 s) goes Unknown meanwhile
    expect(readyStates).toEqual(['True', 'False', ...(seconds > 42 ? ['Unknown'] : []), 'True']);
    expect(condition(name, 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady', lastTransitionTime: at(clock.now()) });
    expect(taints(name)).toEqual([]);
    expect((node(name).status as { nodeInfo: { bootID: string } }).nodeInfo.bootID).not.toBe(bootBefore);
    expect(
      podsOn(name)
        .map(podReady)
        .every((s) => s === 'True'),
    ).toBe(true);
    expect(podsOn(name).map((p) => (p.status as { containerStatuses: { restartCount: number }[] }).containerStatuses[0].restartCount)).toEqual(
      podsOn(name).map(() => 1),
    );
    expect(state).toBe('running');
    expect(instance.reboots).toBe(1);
  });

  it('should heal the conditions a reboot fixes and bring back, freshly failed, those only a replacement fixes', async () => {
    // Prepare
    const instance = ec2world.instances.values().next().value as SimInstance;
    const name = instance.privateDnsName;
    health.unhealthy({ node: name, condition: 'KernelReady', count: 1, fixedBy: 'reboot' }, 1);
    health.unhealthy({ node: name, condition: 'NetworkingReady', count: 1, fixedBy: 'replace' }, 1);
    await runFor(60);
    // Act
    await ec2.send(new RebootInstancesCommand({ InstanceIds: [instance.id] }));
    await runFor(rebootSeconds(ec2world, instance, 1));
    const bootedAt = at(clock.now());
    await runFor(300);
    // Assess
    expect(condition(name, 'KernelReady')).toMatchObject({ status: 'True', reason: 'KernelIsReady', lastTransitionTime: bootedAt });
    expect(condition(name, 'NetworkingReady')).toMatchObject({
      status: 'False',
      reason: 'InterfaceNotUp',
      message: expect.stringMatching(/^Interface Name: "eth0", MAC: "0e(:[0-9a-f]{2}){5}" is not up$/),
      lastTransitionTime: bootedAt,
    });
    expect(condition(name, 'Ready')?.status).toBe('True');
  });

  it('should bring a dead kubelet back with a reboot when a reboot fixes it, and lose it again 40 s after boot when it does not', async () => {
    // Prepare
    const [fixed, broken] = [...ec2world.instances.values()].slice(0, 2);
    health.unhealthy({ node: fixed.privateDnsName, condition: 'Ready', count: 1, fixedBy: 'reboot' }, 1);
    health.unhealthy({ node: broken.privateDnsName, condition: 'Ready', count: 1, fixedBy: 'replace' }, 1);
    await runFor(120);
    const unknown = [condition(fixed.privateDnsName, 'Ready')?.status, condition(broken.privateDnsName, 'Ready')?.status];
    // Act
    await ec2.send(new RebootInstancesCommand({ InstanceIds: [fixed.id, broken.id] }));
    const boot = Math.max(rebootSeconds(ec2world, fixed, 1), rebootSeconds(ec2world, broken, 1));
    await runFor(boot);
    const afterBoot = [condition(fixed.privateDnsName, 'Ready')?.status, condition(broken.privateDnsName, 'Ready')?.status];
    await runFor(41);
    // Assess
    expect(unknown).toEqual(['Unknown', 'Unknown']);
    expect(afterBoot).toEqual(['True', 'True']);
    expect(condition(fixed.privateDnsName, 'Ready')?.status).toBe('True');
    expect(taints(fixed.privateDnsName)).toEqual([]);
    expect(condition(broken.privateDnsName, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(taints(broken.privateDnsName)).toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
  });

  it("should refuse to reboot an unknown or terminated instance with EC2's errors, and terminate a rebooting one as usual", async () => {
    // Prepare
    const [gone, rebooting] = [...ec2world.instances.values()].slice(0, 2);
    ec2world.terminate(gone.id, 'test');
    await runFor(20);
    // Act
    const unknown = await ec2.send(new RebootInstancesCommand({ InstanceIds: ['i-00000000000000000'] })).catch((e: Error) => e);
    const terminated = await ec2.send(new RebootInstancesCommand({ InstanceIds: [rebooting.id, gone.id] })).catch((e: Error) => e);
    const refusedWithout = rebooting.reboots;
    await ec2.send(new RebootInstancesCommand({ InstanceIds: [rebooting.id] }));
    await runFor(5);
    ec2world.terminate(rebooting.id, 'test');
    await runFor(rebootSeconds(ec2world, rebooting, 1) + 60);
    // Assess
    expect(unknown).toMatchObject({ name: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-00000000000000000' does not exist" });
    expect(terminated).toMatchObject({ name: 'IncorrectState', message: expect.stringContaining(gone.id) });
    expect(refusedWithout).toBeUndefined();
    // the path an instance shutting down takes: the node lifecycle controller at once
    expect(condition(gone.privateDnsName, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', lastTransitionTime: at(T0 + 32_000) });
    expect(taints(gone.privateDnsName)).toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    expect(rebooting.state).toBe('terminated');
    expect(condition(rebooting.privateDnsName, 'Ready')?.status).toBe('Unknown');
  });
});

describe('an unhealthy event in a scenario', () => {
  const scenario = (events: string) => `
name: node-health
duration: 2m
objects: |
${objects(nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}']), NODE_CLASS)}
fleet:
  - {nodePool: default, instanceType: m5.large, capacityType: on-demand, count: 3}
${events}`;

  it('should break a node and count it in the result; a run without one has no nodeHealth', async () => {
    // Act
    const run = await runScenario(
      parseScenario(scenario('events:\n  - {at: 1m07s, unhealthy: {node: any, condition: StorageReady, fixedBy: reboot}}\n'), 'node-health.yaml'),
    );
    const quiet = await runScenario(parseScenario(scenario(''), 'quiet.yaml'));
    // Assess
    expect(run.nodeHealth).toEqual({ injected: 1, reboots: 0 });
    expect(run.scenarioEvents).toEqual([
      { t: 67, kind: 'unhealthy', description: expect.stringMatching(/^unhealthy StorageReady on ip-[\d-]+\.ec2\.internal \(fixed by reboot\)$/), ok: true },
    ]);
    expect(quiet).not.toHaveProperty('nodeHealth');
  }, 120_000);

  it("should report a node repair's disruption (reason Unhealthy) as unhealthy, not as an AWS Health interruption", () => {
    // Act / Assess
    expect(disruptionReason('Unhealthy')).toBe('unhealthy');
    expect(disruptionReason('AWS Health scheduled change')).toBe('interrupted');
  });
});
