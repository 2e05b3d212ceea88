/**
 * Instance profiles managed from an EC2NodeClass `role` (issue #10), on the production handlers: a class that
 * names only a role launches nodes (the simulated EC2 refuses a launch template whose profile does not exist
 * or has no role, as EC2 does), the profile carries the role, the cluster and class tags and this cluster's
 * path, and garbage collection deletes it once the class is gone and no NodeClaim uses it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';

import { kubeTypes, listAll, podNodeName } from '../../shared/sim/cluster/kube-objects';
import { applyObjects } from '../../shared/sim/scenario/events';
import { runFor } from './fixtures/time';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: instance-profiles
objects: |
${objects(
  nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']),
  NODE_CLASS,
  deployment('inflate', 'pause', '{cpu: "1"}', 2),
)}
`;

describe('instance profiles managed from the EC2NodeClass role (and launch templates cleaned up with the class)', () => {
  let world: SimWorld;
  afterEach(async () => world?.close());

  it('should create the profile with the role on first launch, run the pods, and delete it once the class and its claims are gone', async () => {
    // Prepare
    const scenario = parseScenario(SCENARIO, 'instance-profiles.yaml');
    world = await worldForScenario(scenario);
    const types = kubeTypes(world.api.store);
    const pods = () => listAll(world.api.store, types.pod).filter((p) => p.metadata.labels?.app === 'inflate');
    // Act: launch
    applyObjects(world, scenario.objects);
    await runFor(world, 180);
    // Assess: one managed profile, with the role, under this cluster's path, tagged; the pods run
    const profiles = [...world.ec2.instanceProfiles.values()];
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({ roles: ['KarpenterNodeRole'], path: `/karpenter/${scenario.region}/${scenario.clusterName}/default/` });
    expect(profiles[0].name).toMatch(new RegExp(`^${scenario.clusterName}_\\d+$`));
    expect(profiles[0].tags).toMatchObject({
      [`kubernetes.io/cluster/${scenario.clusterName}`]: 'owned',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'topology.kubernetes.io/region': scenario.region,
    });
    expect(pods().filter((p) => podNodeName(p)).length).toBe(2);
    expect([...world.ec2.launchTemplates.values()].every((t) => t.instanceProfile === profiles[0].name)).toBe(true);
    // …and each instance is named after its node once it registered (Karpenter's tagging controller)
    const nodeNames = listAll(world.api.store, types.node).map((n) => String(n.metadata.name));
    const running = [...world.ec2.instances.values()].filter((i) => i.state === 'running');
    expect(running.map((i) => i.tags.Name).sort()).toEqual(nodeNames.sort());
    expect(running.every((i) => i.tags['karpenter.sh/nodeclaim'] && i.tags['eks:eks-cluster-name'] === scenario.clusterName)).toBe(true);

    // Act: delete the NodePool and its NodeClaims (drained and terminated), then the EC2NodeClass
    world.api.store.delete(world.api.store.typeOf('karpenter.sh/v1', 'NodePool'), undefined, 'default');
    for (const c of listAll(world.api.store, types.nodeClaim)) world.api.store.delete(types.nodeClaim, undefined, String(c.metadata.name));
    await runFor(world, 240);
    world.api.store.delete(world.api.store.typeOf('karpenter.k8s.aws/v1', 'EC2NodeClass'), undefined, 'default');
    await runFor(world, 300);
    // Assess
    expect(listAll(world.api.store, types.nodeClaim)).toHaveLength(0);
    expect(world.ec2.instanceProfiles.size).toBe(0);
    // …and its launch templates went with it
    expect(world.ec2.launchTemplates.size).toBe(0);
  }, 120_000);
});

const OTHER_ROLE = `
name: instance-profiles-other-role
objects: |
${objects(
  nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']),
  NODE_CLASS,
  nodePool('team-a', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']).replace('name: default}', 'name: team-a}'),
  NODE_CLASS.replace('{name: default}', '{name: team-a}').replace(/role: .*/, 'role: TeamARole'),
  ...['default', 'team-a'].map(
    (pool) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: app-${pool}}
spec:
  replicas: 2
  selector: {matchLabels: {app: app-${pool}}}
  template:
    metadata: {labels: {app: app-${pool}}}
    spec:
      nodeSelector: {karpenter.sh/nodepool: ${pool}}
      containers: [{name: app, image: pause, resources: {requests: {cpu: "1"}}}]`,
  ),
)}
`;

describe('a node class whose role the deployment may not pass to EC2', () => {
  let world: SimWorld;
  afterEach(async () => world?.close());

  it('should mark the class not ready, naming both roles and the fix, and launch nothing for it while the other pool runs its pods', async () => {
    // Prepare: deployed with nodeRoleName = the first class's role (iam:PassRole for that role only)
    const scenario = parseScenario(OTHER_ROLE, 'instance-profiles-other-role.yaml');
    world = await worldForScenario(scenario);
    const store = world.api.store;
    const types = kubeTypes(store);
    const running = (app: string) => listAll(store, types.pod).filter((p) => p.metadata.labels?.app === app && podNodeName(p)).length;
    // Act
    applyObjects(world, scenario.objects);
    await runFor(world, 240);
    // Assess
    const teamA = listAll(store, store.typeOf('karpenter.k8s.aws/v1', 'EC2NodeClass')).find((c) => c.metadata.name === 'team-a');
    const conditions = (teamA?.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'InstanceProfileReady')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('spec.role "TeamARole" is not the node role this deployment may pass to EC2'),
    });
    expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect([running('app-default'), running('app-team-a')]).toEqual([2, 0]);
    expect(listAll(store, types.nodeClaim).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === 'team-a')).toEqual([]);
    expect([...world.ec2.instanceProfiles.values()].map((p) => p.roles)).toEqual([['KarpenterNodeRole']]);
  }, 120_000);
});
