/**
 * EC2 StopInstances / StartInstances in the simulator (shared/sim/aws/ec2-stop-start.ts, cluster/node-health.ts): the
 * kube side driven directly on virtual time (no functions run), EC2 through the real EC2Client against the mock.
 */
import {
  DescribeInstancesCommand,
  EC2Client,
  RebootInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../shared/sim/clock';
import type { Ec2Event, Ec2World, SimInstance } from '../../shared/sim/aws/ec2-world';
import { computeCostUntil, computePerHourNow, ebsCostUntil, ebsPerHourNow, stoppedMsUntil } from '../../shared/sim/aws/ec2-billing';
import { rebootSeconds } from '../../shared/sim/aws/ec2-reboot';
import { startSeconds, stopSeconds } from '../../shared/sim/aws/ec2-stop-start';
import { bareCluster, launchInstance } from './fixtures/bare-cluster';
import { runFor as advance } from './fixtures/time';
import { FakeKubeApi, type KubeObject } from '../../shared/sim/kube';

/** A 20 GiB gp3 root volume (no launch template known) at $0.08 per GB-month of 30 days, per hour. */
const ROOT_EBS_PER_HOUR = (20 * 0.08) / 720;
const UNREACHABLE = ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'];

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('EC2 StopInstances and StartInstances in the simulator', () => {
  let clock: VirtualClock;
  let api: FakeKubeApi;
  let ec2world: Ec2World;
  let close: () => void;
  let events: Ec2Event[];
  const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const nodeType = () => api.store.typeOf('v1', 'Node');
  const node = (name: string) => api.store.get(nodeType(), undefined, name);
  const ready = (name: string): Condition | undefined => ((node(name).status as { conditions?: Condition[] }).conditions ?? []).find((c) => c.type === 'Ready');
  const taints = (name: string) => ((node(name).spec?.taints as { key: string; effect: string }[] | undefined) ?? []).map((t) => `${t.key}:${t.effect}`);
  const bootID = (name: string) => (node(name).status as { nodeInfo: { bootID: string } }).nodeInfo.bootID;
  const podsOn = (name: string): KubeObject[] =>
    api.store.list(api.store.typeOf('v1', 'Pod')).items.filter((p) => (p.spec as { nodeName?: string }).nodeName === name);
  const podReady = (p: KubeObject) => ((p.status as { conditions?: Condition[] }).conditions ?? []).find((c) => c.type === 'Ready')?.status;
  const described = async (id: string) => (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0];
  const stateChanges = (id: string) =>
    events.filter((e) => e['detail-type'] === 'EC2 Instance State-change Notification' && e.detail['instance-id'] === id).map((e) => e.detail.state);
  const refusal = (p: Promise<unknown>) => p.then(() => undefined).catch((e: Error) => ({ name: e.name, message: e.message }));

  const runFor = (seconds: number) => advance({ clock }, seconds);
  const launch = (token: string, capacityType: 'spot' | 'on-demand' = 'on-demand') => launchInstance(ec2world, token, { capacityType });

  /** Stops the instance through EC2 and waits until it is stopped. */
  async function stopped(i: SimInstance): Promise<number> {
    const stoppedAt = clock.now();
    await ec2.send(new StopInstancesCommand({ InstanceIds: [i.id] }));
    await runFor(stopSeconds(ec2world, i, i.stops ?? 1) + 1);
    return stoppedAt;
  }

  beforeEach(async () => {
    events = [];
    ({ clock, api, ec2world, close } = await bareCluster({ beforeStart: (w) => w.onEvent((e) => events.push(e)) }));
  });

  afterEach(() => close());

  const first = () => ec2world.instances.values().next().value as SimInstance;

  it('should take a stopped instance stopping → stopped, its Node NotReady then Unknown with the unreachable taints, the Node and its pods kept', async () => {
    // Prepare
    const instance = first();
    const name = instance.privateDnsName;
    const uid = node(name).metadata.uid;
    const pods = podsOn(name).map((p) => p.metadata.name);
    const calledAt = clock.now();
    // Act
    const answer = await ec2.send(new StopInstancesCommand({ InstanceIds: [instance.id] }));
    const stopping = await described(instance.id);
    await runFor(2);
    const shuttingDown = { ready: ready(name), taints: taints(name), pods: podsOn(name).map(podReady) };
    await runFor(40);
    const unknown = { ready: ready(name), taints: taints(name) };
    await runFor(60);
    const after = await described(instance.id);
    // Assess
    expect(answer.StoppingInstances).toEqual([
      { InstanceId: instance.id, PreviousState: { Code: 16, Name: 'running' }, CurrentState: { Code: 64, Name: 'stopping' } },
    ]);
    expect(stopping).toMatchObject({
      State: { Code: 64, Name: 'stopping' },
      StateTransitionReason: `User initiated (${at(calledAt).replace('T', ' ').replace('Z', '')} GMT)`,
      StateReason: { Code: 'Client.UserInitiatedShutdown' },
      PrivateDnsName: name,
    });
    expect(after?.State).toEqual({ Code: 80, Name: 'stopped' });
    expect(stateChanges(instance.id)).toEqual(['stopping', 'stopped']);
    expect(stopSeconds(ec2world, instance, 1)).toBeGreaterThanOrEqual(30);
    expect(stopSeconds(ec2world, instance, 1)).toBeLessThanOrEqual(60);
    // the kubelet's graceful shutdown, then the node lifecycle controller 40 s after its last post
    expect(shuttingDown.ready).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' });
    expect(shuttingDown.taints).toEqual(['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute']);
    expect(shuttingDown.pods.every((s) => s === 'False')).toBe(true);
    expect(unknown.ready).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', lastTransitionTime: at(calledAt + 42_000) });
    expect(unknown.taints).toEqual(UNREACHABLE);
    expect(node(name).metadata.uid).toBe(uid);
    expect(podsOn(name).map((p) => p.metadata.name)).toEqual(pods);
    expect(ready(name)?.status).toBe('Unknown');
  });

  it('should bill no compute while an instance is stopped, and keep billing its EBS volume', async () => {
    // Prepare
    const instance = first();
    const others = [...ec2world.instances.values()].filter((i) => i !== instance).reduce((s, i) => s + i.pricePerHour, 0);
    const stoppedAt = await stopped(instance);
    const [computeBefore, ebsBefore] = [computeCostUntil(ec2world, clock.now()), ebsCostUntil(ec2world, clock.now())];
    // Act
    await runFor(3600);
    // Assess
    expect(instance.state).toBe('stopped');
    expect(computeCostUntil(ec2world, clock.now()) - computeBefore).toBeCloseTo(others, 9);
    expect(computePerHourNow(ec2world)).toBeCloseTo(others, 9);
    expect(ebsCostUntil(ec2world, clock.now()) - ebsBefore).toBeCloseTo(3 * ROOT_EBS_PER_HOUR, 9);
    expect(ebsPerHourNow(ec2world)).toBeCloseTo(3 * ROOT_EBS_PER_HOUR, 9);
    expect(stoppedMsUntil(instance, clock.now())).toBe(clock.now() - stoppedAt);
  });

  it('should start a stopped instance: pending → running, then the same Node Ready again with a new boot, its taints gone, its pods running', async () => {
    // Prepare
    const instance = first();
    const name = instance.privateDnsName;
    const [uid, providerID, ip, bootBefore] = [
      node(name).metadata.uid,
      (node(name).spec as { providerID: string }).providerID,
      instance.privateIp,
      bootID(name),
    ];
    const stoppedAt = await stopped(instance);
    await runFor(300);
    const unknownSince = ready(name)?.lastTransitionTime;
    const { running, boot } = startSeconds(ec2world, instance, 1);
    const startedAt = clock.now();
    // Act
    const answer = await ec2.send(new StartInstancesCommand({ InstanceIds: [instance.id] }));
    const pending = (await described(instance.id))?.State?.Name;
    await runFor(running);
    const up = await described(instance.id);
    const beforeBoot = ready(name)?.status;
    await runFor(boot);
    // Assess
    expect([running >= 10 && running <= 20, boot >= 15 && boot <= 30]).toEqual([true, true]);
    expect(answer.StartingInstances).toEqual([
      { InstanceId: instance.id, PreviousState: { Code: 80, Name: 'stopped' }, CurrentState: { Code: 0, Name: 'pending' } },
    ]);
    expect(pending).toBe('pending');
    expect(up).toMatchObject({ State: { Name: 'running' }, StateTransitionReason: '', InstanceId: instance.id, PrivateIpAddress: ip, PrivateDnsName: name });
    expect(up).not.toHaveProperty('StateReason');
    expect(stateChanges(instance.id)).toEqual(['stopping', 'stopped', 'pending', 'running']);
    expect(beforeBoot).toBe('Unknown');
    expect(ready(name)).toMatchObject({ status: 'True', reason: 'KubeletReady', lastTransitionTime: at(clock.now()) });
    expect(ready(name)?.lastTransitionTime).not.toBe(unknownSince);
    expect(taints(name)).toEqual([]);
    expect(bootID(name)).not.toBe(bootBefore);
    expect([node(name).metadata.uid, (node(name).spec as { providerID: string }).providerID]).toEqual([uid, providerID]);
    expect(podsOn(name).length).toBeGreaterThan(0);
    expect(podsOn(name).every((p) => podReady(p) === 'True')).toBe(true);
    // compute billed again from the start; the stop is closed
    expect(stoppedMsUntil(instance, clock.now())).toBe(startedAt - stoppedAt);
    expect(computePerHourNow(ec2world)).toBeCloseTo(3 * instance.pricePerHour, 9);
  });

  it('should register the Node at the boot when the instance was stopped before its kubelet had registered it', async () => {
    // Prepare: running at 5 s, stopped at 6 s, the kubelet's 30 s registration finds it stopping
    const late = launch('late');
    await runFor(6);
    await stopped(late);
    // Act
    await ec2.send(new StartInstancesCommand({ InstanceIds: [late.id] }));
    const { running, boot } = startSeconds(ec2world, late, 1);
    await runFor(running + boot);
    // Assess
    expect(ready(late.privateDnsName)?.status).toBe('True');
    expect(taints(late.privateDnsName)).toContain('karpenter.sh/unregistered:NoExecute');
  });

  it('should refuse what EC2 refuses, all or none: a spot instance, an unknown id, a stop or start from the wrong state, a start without capacity', async () => {
    // Prepare
    const [a, b] = [...ec2world.instances.values()];
    const spot = launch('spot', 'spot');
    const pending = launch('pending');
    await ec2.send(new StopInstancesCommand({ InstanceIds: [b.id] }));
    // Act
    const spotRefused = await refusal(ec2.send(new StopInstancesCommand({ InstanceIds: [a.id, spot.id] })));
    const unknown = await refusal(ec2.send(new StopInstancesCommand({ InstanceIds: [a.id, 'i-00000000000000000'] })));
    const pendingRefused = await refusal(ec2.send(new StopInstancesCommand({ InstanceIds: [a.id, pending.id] })));
    const stoppingRefused = await refusal(ec2.send(new StartInstancesCommand({ InstanceIds: [b.id] })));
    const runningAgain = await ec2.send(new StartInstancesCommand({ InstanceIds: [a.id] }));
    const stoppingAgain = await ec2.send(new StopInstancesCommand({ InstanceIds: [b.id] }));
    await runFor(61);
    ec2world.addCapacityWindow({ instanceType: b.type, zone: b.zone, capacityType: 'on-demand', fromMs: clock.now(), untilMs: clock.now() + 600_000 });
    const noCapacity = await refusal(ec2.send(new StartInstancesCommand({ InstanceIds: [b.id] })));
    // Assess
    expect(spotRefused).toEqual({
      name: 'UnsupportedOperation',
      message: `You can't stop the Spot Instance '${spot.id}' because it is associated with a one-time Spot Instance request. You can only stop Spot Instances associated with persistent Spot Instance requests.`,
    });
    expect(unknown).toEqual({ name: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-00000000000000000' does not exist" });
    expect(pendingRefused).toEqual({
      name: 'IncorrectInstanceState',
      message: `This instance '${pending.id}' is not in a state from which it can be stopped.`,
    });
    expect(stoppingRefused).toEqual({ name: 'IncorrectInstanceState', message: `The instance '${b.id}' is not in a state from which it can be started.` });
    expect(noCapacity).toMatchObject({ name: 'InsufficientInstanceCapacity', message: expect.stringContaining(`sufficient ${b.type} capacity`) });
    // all or none: nothing else was stopped; a call for what is already under way answers its state
    expect([a.state, a.stops, spot.state, pending.state, b.state, b.stops]).toEqual(['running', undefined, 'running', 'running', 'stopped', 1]);
    expect(runningAgain.StartingInstances?.[0]).toMatchObject({ PreviousState: { Name: 'running' }, CurrentState: { Name: 'running' } });
    expect(stoppingAgain.StoppingInstances?.[0]).toMatchObject({ PreviousState: { Name: 'stopping' }, CurrentState: { Name: 'stopping' } });
  });

  it('should terminate a stopped instance at once, its Node left Unknown, compute and EBS no longer billed', async () => {
    // Prepare
    const instance = first();
    const name = instance.privateDnsName;
    await stopped(instance);
    await runFor(60);
    // Act
    const answer = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instance.id] }));
    const ended = clock.now();
    const [compute, ebs] = [computeCostUntil(ec2world, ended), ebsCostUntil(ec2world, ended)];
    await runFor(600);
    const start = await refusal(ec2.send(new StartInstancesCommand({ InstanceIds: [instance.id] })));
    // Assess
    expect(answer.TerminatingInstances).toEqual([{ InstanceId: instance.id, PreviousState: { Name: 'stopped' }, CurrentState: { Name: 'terminated' } }]);
    expect(instance.terminatedAtMs).toBe(ended);
    expect(stateChanges(instance.id)).toEqual(['stopping', 'stopped', 'terminated']);
    expect(ready(name)).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(taints(name)).toEqual(UNREACHABLE);
    expect(start).toMatchObject({ name: 'IncorrectInstanceState' });
    const others = [...ec2world.instances.values()].filter((i) => i !== instance).reduce((s, i) => s + i.pricePerHour, 0);
    expect(computeCostUntil(ec2world, clock.now()) - compute).toBeCloseTo((others * 600) / 3600, 9);
    expect(ebsCostUntil(ec2world, clock.now()) - ebs).toBeCloseTo((2 * ROOT_EBS_PER_HOUR * 600) / 3600, 9);
  });

  it('should keep a node stopped during its reboot down (the reboot never boots it), and refuse to reboot a stopped instance', async () => {
    // Prepare
    const instance = first();
    const name = instance.privateDnsName;
    await ec2.send(new RebootInstancesCommand({ InstanceIds: [instance.id] }));
    await runFor(5);
    // Act
    await ec2.send(new StopInstancesCommand({ InstanceIds: [instance.id] }));
    await runFor(rebootSeconds(ec2world, instance, 1) + 60);
    const reboot = await refusal(ec2.send(new RebootInstancesCommand({ InstanceIds: [instance.id] })));
    // Assess
    expect(instance.state).toBe('stopped');
    expect(ready(name)).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(taints(name)).toEqual(UNREACHABLE);
    expect(reboot).toMatchObject({ name: 'IncorrectState' });
  });
});
