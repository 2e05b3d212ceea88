import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario, worldForScenario } from '../../shared/sim';
import { applyObjects } from '../../shared/sim/scenario/events';
import { seedFleet } from '../../shared/sim/scenario/fleet';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const DAEMON_SET = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: node-agent}}
  template:
    metadata: {labels: {app: node-agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: agent, image: agent, resources: {requests: {cpu: 100m, memory: 128Mi}}}]`;

const pool = (policy: string) =>
  `${nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [m, c]}', '{key: kubernetes.io/arch, operator: In, values: [amd64]}'])}
  disruption: {consolidationPolicy: ${policy}}`;

const scenario = (fleet: string, extra = '', policy = 'WhenEmpty') => `
name: seeded-fleet
seed: 7
duration: 12m
objects: |
${objects(pool(policy), NODE_CLASS, DAEMON_SET, deployment('web', 'nginx', '{cpu: "1", memory: 1Gi}'))}
fleet:
${fleet}
${extra}`;

describe('a scenario that starts from a running fleet', () => {
  it('should treat the seeded nodes as nodewright-launched: pods that fit launch nothing, nothing is collected, drifted or replaced', async () => {
    // Arrange: 30 m6i.xlarge (4 vCPU) nodes across the zones, 3 one-CPU pods each.
    const text = scenario(
      '  - {nodePool: default, instanceType: m6i.xlarge, capacityType: on-demand, count: 24}\n  - {nodePool: default, instanceType: m6i.xlarge, capacityType: spot, count: 6, zone: us-east-1b}',
      'events:\n  - {at: 0s, scale: {deployment: default/web, replicas: 90}}',
    );
    // Act
    const run = await runScenario(parseScenario(text, 'fleet.yaml'));
    // Assert
    const seeded = run.nodes.filter((n) => n.launchedAt === 0);
    expect(seeded).toHaveLength(30);
    expect(seeded.filter((n) => n.capacityType === 'spot').every((n) => n.zone === 'us-east-1b')).toBe(true);
    expect(new Set(seeded.filter((n) => n.capacityType === 'on-demand').map((n) => n.zone))).toEqual(new Set(['us-east-1a', 'us-east-1b', 'us-east-1c']));
    expect(run.nodes).toHaveLength(30);
    expect(run.executions.filter((e) => e.machine === 'launch')).toEqual([]);
    expect(run.executions.filter((e) => e.machine === 'terminate' || e.machine === 'disrupt')).toEqual([]);
    expect(run.disruptions).toEqual([]);
    expect(run.events.filter((e) => /orphan|drift/i.test(e.message))).toEqual([]);
    const collections = run.events.filter((e) => e.message === 'garbage collection finished');
    expect(collections.length).toBeGreaterThan(3);
    expect(collections.every((e) => e.fields?.actions === 0 && e.fields.instances === 30 && e.fields.nodeClaims === 30)).toBe(true);
    expect(run.final).toEqual({ nodes: 30, pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(run.violations.podsLost).toBe(0);
    expect(run.invocationErrors).toEqual([]);
    expect(seeded.every((n) => n.nodeClaim && n.nodePool === 'default')).toBe(true);
  }, 300_000);

  it('should consolidate seeded nodes like any it launched: drained, terminated, claims and nodes finalized, nothing left behind', async () => {
    // Arrange: on-demand m6i.xlarge nodes that spot capacity undercuts, under WhenEmptyOrUnderutilized.
    const text = scenario(
      '  - {nodePool: default, instanceType: m6i.xlarge, count: 12}',
      'events:\n  - {at: 0s, scale: {deployment: default/web, replicas: 36}}',
      'WhenEmptyOrUnderutilized',
    );
    // Act
    const run = await runScenario(parseScenario(text, 'fleet-consolidation.yaml'));
    // Assert
    const replaced = run.nodes.filter((n) => n.launchedAt === 0 && n.terminationReason);
    expect(replaced.length).toBeGreaterThan(0);
    expect(run.disruptions.some((d) => d.reason === 'underutilized')).toBe(true);
    expect(run.final).toMatchObject({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(run.violations.podsLost).toBe(0);
  }, 300_000);

  it('should leave each node as launch, registration and initialization do: claim, node, instance and DaemonSet pod', async () => {
    // Arrange
    const parsed = parseScenario(scenario('  - {nodePool: default, instanceType: m6i.large, capacityType: spot, count: 4}'), 'fleet-objects.yaml');
    const world = await worldForScenario(parsed);
    try {
      applyObjects(world, parsed.objects);
      // Act
      const seeded = await seedFleet(world, parsed);
      // Assert
      const store = world.api.store;
      const claims = store.scan(store.typeOf('karpenter.sh/v1', 'NodeClaim'));
      const nodes = store.scan(store.typeOf('v1', 'Node'));
      const pods = store.scan(store.typeOf('v1', 'Pod'));
      const pool = store.scan(store.typeOf('karpenter.sh/v1', 'NodePool'))[0];
      expect(seeded).toBe(4);
      expect(claims).toHaveLength(4);
      for (const claim of claims) {
        const status = claim.status as { providerID: string; nodeName: string; conditions: { type: string; status: string }[]; allocatable: object };
        const node = nodes.find((n) => n.metadata.name === status.nodeName)!;
        const instance = world.ec2.instances.get(status.providerID.split('/').pop()!)!;
        expect(claim.metadata.finalizers).toEqual(['karpenter.sh/termination']);
        expect(claim.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'NodePool', name: 'default', uid: pool.metadata.uid })]);
        expect(Object.keys(claim.metadata.annotations ?? {})).toEqual(
          expect.arrayContaining(['karpenter.sh/nodepool-hash', 'karpenter.sh/nodepool-hash-version', 'karpenter.k8s.aws/ec2nodeclass-hash']),
        );
        expect(claim.metadata.labels).toMatchObject({
          'karpenter.sh/nodepool': 'default',
          'node.kubernetes.io/instance-type': 'm6i.large',
          'karpenter.sh/capacity-type': 'spot',
        });
        expect(status.conditions.filter((c) => c.status === 'True').map((c) => c.type)).toEqual(['Launched', 'Registered', 'Initialized', 'Ready']);
        expect(status.allocatable).toEqual((node.status as { allocatable: object }).allocatable);
        expect(node.metadata.labels).toMatchObject({
          'karpenter.sh/registered': 'true',
          'karpenter.sh/initialized': 'true',
          'karpenter.sh/nodepool': 'default',
        });
        expect(node.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'NodeClaim', name: claim.metadata.name, uid: claim.metadata.uid })]);
        expect((node.spec as { taints: unknown[] }).taints).toEqual([]);
        expect(instance).toMatchObject({ state: 'running', capacityType: 'spot', type: 'm6i.large' });
        expect(instance.tags).toMatchObject({
          'karpenter.sh/nodeclaim': claim.metadata.name,
          'karpenter.sh/nodepool': 'default',
          'karpenter.k8s.aws/ec2nodeclass': 'default',
        });
        expect(world.ec2.launchTemplates.has(instance.launchTemplateName!)).toBe(true);
        expect(pods.filter((p) => (p.spec as { nodeName?: string }).nodeName === node.metadata.name).map((p) => p.metadata.name)).toEqual([
          expect.stringMatching(/^node-agent-/),
        ]);
      }
    } finally {
      await world.close();
    }
  }, 120_000);

  it('should seed `launchedBy: karpenter` nodes as Karpenter left them: its names, its hashes at its versions, none of our marks', async () => {
    // Arrange
    const parsed = parseScenario(scenario('  - {nodePool: default, instanceType: m6i.large, count: 3, launchedBy: karpenter}'), 'fleet-karpenter.yaml');
    const world = await worldForScenario(parsed);
    try {
      applyObjects(world, parsed.objects);
      // Act
      await seedFleet(world, parsed);
      // Assert
      const store = world.api.store;
      const claims = store.scan(store.typeOf('karpenter.sh/v1', 'NodeClaim'));
      const pool = store.scan(store.typeOf('karpenter.sh/v1', 'NodePool'))[0];
      const nodeClass = store.scan(store.typeOf('karpenter.k8s.aws/v1', 'EC2NodeClass'))[0];
      expect(claims.map((c) => c.metadata.name)).toEqual(Array(3).fill(expect.stringMatching(/^default-[bcdfghjklmnpqrstvwxz2456789]{5}$/)));
      for (const c of claims) {
        const a = c.metadata.annotations as Record<string, string>;
        expect(a).toMatchObject({
          'karpenter.sh/nodepool-hash': (pool.metadata.annotations as Record<string, string>)['karpenter.sh/nodepool-hash'],
          'karpenter.sh/nodepool-hash-version': 'v3',
          'karpenter.k8s.aws/ec2nodeclass-hash': (nodeClass.metadata.annotations as Record<string, string>)['karpenter.k8s.aws/ec2nodeclass-hash'],
          'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v6',
          'karpenter.k8s.aws/tagged': 'true',
        });
        expect(Object.keys(a).filter((k) => k.startsWith('nodewright.io/'))).toEqual([]);
      }
    } finally {
      await world.close();
    }
  }, 120_000);

  it.each([
    ['{nodePool: default, instanceType: m9z.huge, count: 3}', 'fleet.0.instanceType: unknown instance type "m9z.huge"'],
    ['{nodePool: other, instanceType: m6i.xlarge, count: 3}', 'fleet.0.nodePool: no NodePool "other"'],
    ['{nodePool: default, instanceType: m6i.xlarge, count: 0}', 'fleet.0.count: count must be at least 1'],
    [
      '{nodePool: default, instanceType: r6i.xlarge, count: 3}',
      'fleet.0.instanceType: r6i.xlarge is excluded by NodePool "default"\'s requirement karpenter.k8s.aws/instance-category In [m, c]',
    ],
    ['{nodePool: default, instanceType: m6i.xlarge, count: 3, zone: eu-west-1a}', "fleet.0.zone: eu-west-1a is not one of the scenario's zones"],
  ])('should refuse the fleet entry %s naming the field', (entry, message) => {
    // Act + Assert
    expect(() =>
      parseScenario(scenario(`  - {nodePool: default, instanceType: m6i.large, count: 1}\n  - ${entry}`.replace(/fleet\.0/g, 'fleet.1')), 'bad.yaml'),
    ).toThrow(expect.objectContaining({ name: 'ScenarioInvalidError', message: expect.stringContaining(message.replace('fleet.0', 'fleet.1')) }));
  });
});
