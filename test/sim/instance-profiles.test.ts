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
import { NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: instance-profiles
objects: |
${objects(
  nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']),
  NODE_CLASS,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 2
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1"}}}]`,
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
