/**
 * Pod anti-affinity that reaches other namespaces by label (`namespaceSelector`), on the production handlers: the
 * provisioner reads the Namespaces (only because a pod selects them) and plans what kube-scheduler then binds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';
import { kubeTypes, listAll, podNodeName } from '../../shared/sim/cluster/kube-objects';
import { applyObjects } from '../../shared/sim/scenario/events';
import { runFor } from './fixtures/time';
import { NODE_CLASS, nodePool, objects } from './fixtures/objects';

const web = (ns: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {app: web}}
              namespaceSelector: {matchLabels: {team: a}}
      containers: [{name: web, image: pause, resources: {requests: {cpu: 100m}}}]`;

const SCENARIO = `
name: namespace-selector
objects: |
${objects(
  nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']),
  NODE_CLASS,
  'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}',
  'apiVersion: v1\nkind: Namespace\nmetadata: {name: pay, labels: {team: a}}',
  web('shop'),
  web('pay'),
)}
`;

describe('affinity terms with a namespaceSelector', () => {
  let world: SimWorld;
  afterEach(async () => world?.close());

  it("should give each of a team's web pods a node of its own across the team's namespaces, leaving none pending", async () => {
    // Prepare
    const scenario = parseScenario(SCENARIO, 'namespace-selector.yaml');
    world = await worldForScenario(scenario);
    const types = kubeTypes(world.api.store);
    // Act
    applyObjects(world, scenario.objects);
    await runFor(world, 180);
    // Assess: four pods of shop and pay on four nodes, launched in one go (no pod left for a second round)
    const web = listAll(world.api.store, types.pod).filter((p) => p.metadata.labels?.app === 'web');
    const nodes = web.map((p) => podNodeName(p));
    expect(web).toHaveLength(4);
    expect(nodes.every(Boolean)).toBe(true);
    expect(new Set(nodes).size).toBe(4);
    expect(listAll(world.api.store, types.nodeClaim)).toHaveLength(4);
  }, 120_000);
});
