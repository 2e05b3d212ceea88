/**
 * NodePool and EC2NodeClass statuses as `kubectl get nodepools,ec2nodeclasses` shows them: written within seconds of
 * what they describe, and never contradicting each other (a pool is not READY while its class is not).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';

import { kubeTypes, listAll } from '../../shared/sim/cluster/kube-objects';
import { applyObjects } from '../../shared/sim/scenario/events';
import type { KubeObject } from '../../shared/sim/kube/types';
import { runFor } from './fixtures/time';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';

const SCENARIO = `
name: statuses
objects: |
${objects(nodePool('default', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}']), NODE_CLASS, deployment('app', 'pause', '{cpu: "1"}'))}
`;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

describe('NodePool and EC2NodeClass statuses', () => {
  let world: SimWorld;
  const store = () => world.api.store;
  const get = (apiVersion: string, kind: string, name: string): KubeObject | undefined => {
    try {
      return store().get(store().typeOf(apiVersion, kind), undefined, name);
    } catch {
      return undefined;
    }
  };
  const condition = (o: KubeObject | undefined, type: string): Condition | undefined =>
    ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
  const pool = (name = 'default') => get('karpenter.sh/v1', 'NodePool', name);
  const nodeClass = (name = 'default') => get('karpenter.k8s.aws/v1', 'EC2NodeClass', name);
  const apply = (yaml: string) => applyObjects(world, [parse(yaml) as KubeObject]);

  async function secondsUntil(done: () => boolean, maxSeconds: number): Promise<number> {
    const start = world.clock.elapsedSeconds();
    while (!done() && world.clock.elapsedSeconds() - start < maxSeconds) await runFor(world, 1);
    return world.clock.elapsedSeconds() - start;
  }

  beforeEach(async () => {
    const scenario = parseScenario(SCENARIO, 'statuses.yaml');
    world = await worldForScenario(scenario);
    applyObjects(world, scenario.objects);
  }, 60_000);

  afterEach(async () => {
    await world.close();
  });

  it('should say a new EC2NodeClass is Ready, and its NodePool READY, within 10 s', async () => {
    // Act
    const took = await secondsUntil(() => condition(nodeClass(), 'Ready')?.status === 'True' && condition(pool(), 'Ready')?.status === 'True', 60);

    // Assess
    expect(took).toBeLessThanOrEqual(10);
    expect(nodeClass()?.metadata.finalizers).toEqual(['karpenter.k8s.aws/termination']);
    expect(condition(pool(), 'NodeClassReady')).toMatchObject({ status: 'True' });
  });

  it('should say why a new EC2NodeClass is not Ready within 10 s, and never show its NodePool READY', async () => {
    // Prepare
    await runFor(world, 20);

    // Act: a class whose subnets match nothing, and a pool that uses it.
    apply(
      NODE_CLASS.replace('name: default', 'name: lost').replace(
        'subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}]',
        'subnetSelectorTerms: [{tags: {team: nobody}}]',
      ),
    );
    apply(nodePool('lost', ['{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}']).replace('name: default}', 'name: lost}'));
    let poolWasReady = false;
    const took = await secondsUntil(() => {
      if (condition(pool('lost'), 'Ready')?.status === 'True') poolWasReady = true;
      return condition(nodeClass('lost'), 'Ready')?.status === 'False' && condition(pool('lost'), 'NodeClassReady')?.status === 'False';
    }, 60);

    // Assess
    expect(took).toBeLessThanOrEqual(10);
    expect(poolWasReady).toBe(false);
    expect(condition(nodeClass('lost'), 'SubnetsReady')).toMatchObject({ status: 'False' });
    expect(condition(pool('lost'), 'Ready')).toMatchObject({ status: 'False' });
  });

  it('should count a NodePool down to 0 nodes within seconds of its last node going', async () => {
    // Prepare: one node for the app.
    const dep = store().typeOf('apps/v1', 'Deployment');
    store().update(dep, 'default', 'app', { ...store().get(dep, 'default', 'app'), spec: { ...store().get(dep, 'default', 'app').spec, replicas: 1 } });
    await secondsUntil(() => (pool()?.status as { nodes?: number } | undefined)?.nodes === 1, 120);
    expect((pool()?.status as { nodes?: number }).nodes).toBe(1);

    // Act: the node's claim is deleted (kubectl delete nodeclaim); the app scales to 0 so nothing replaces it.
    store().update(dep, 'default', 'app', { ...store().get(dep, 'default', 'app'), spec: { ...store().get(dep, 'default', 'app').spec, replicas: 0 } });
    const claim = listAll(store(), kubeTypes(store()).nodeClaim)[0];
    store().delete(kubeTypes(store()).nodeClaim, undefined, claim.metadata.name as string);
    await secondsUntil(() => listAll(store(), kubeTypes(store()).nodeClaim).length === 0, 120);
    const took = await secondsUntil(() => (pool()?.status as { nodes?: number } | undefined)?.nodes === 0, 120);

    // Assess
    expect(took).toBeLessThanOrEqual(15);
  });
});
