/**
 * The simulator is not kinder than EKS: a pod of a shipped scenario and a node, served by the fake API server,
 * are as large as EKS serves them (pods ~5–7 KB, nodes ~8–10 KB as JSON with managedFields), so what the
 * simulator says about memory, bytes and time is not flattered by small objects. Measured the way a client
 * receives them: the JSON body of a GET.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadCatalog } from '../../../shared/catalog';
import { VirtualClock } from '../../../shared/sim/clock';
import { Ec2World } from '../../../shared/sim/aws/ec2-world';
import { reconcileDaemonSets, reconcileDeployments, runScheduler } from '../../../shared/sim/cluster';
import { startKubelet } from '../../../shared/sim/cluster/kubelet';
import { FakeKubeApi, type KubeObject } from '../../../shared/sim/kube';

const T0 = Date.UTC(2025, 0, 1);

/** The objects of a shipped scenario (examples/scenarios/<name>.yaml). */
function scenarioObjects(name: string): KubeObject[] {
  const text = readFileSync(new URL(`../../../examples/scenarios/${name}.yaml`, import.meta.url), 'utf8');
  const objects = (parseAllDocuments(text)[0].toJSON() as { objects: string }).objects;
  return parseAllDocuments(objects).map((d) => d.toJSON() as KubeObject);
}

function servedBytes(api: FakeKubeApi, path: string): { bytes: number; body: KubeObject } {
  const r = api.handle({ method: 'GET', path, query: new URLSearchParams(), headers: {} });
  expect(r.status).toBe(200);
  return { bytes: Buffer.byteLength(JSON.stringify(r.body)), body: r.body as KubeObject };
}

describe('simulated objects are as large as EKS serves them', () => {
  it("should serve the walkthrough's pod at ≥ 5 KB and its node at ≥ 8 KB, with managedFields", () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const api = new FakeKubeApi({ clock: () => clock.now() });
    const world = new Ec2World({ region: 'us-east-1', zones: ['us-east-1a'], clusterName: 'sim', seed: 1, clock, catalog: loadCatalog() });
    for (const o of scenarioObjects('walkthrough')) if (o.kind === 'Deployment' || o.kind === 'DaemonSet') api.apply(o);
    startKubelet(world, api.store, { startupSeconds: 10 });
    const i = world.launch({
      type: 'm5.xlarge',
      zone: 'us-east-1a',
      subnetId: world.subnets[0].id,
      capacityType: 'on-demand',
      imageId: 'ami-1',
      securityGroupIds: [],
      tags: {},
      clientToken: 'size',
      userData: '--node-labels=karpenter.sh/nodepool=default',
    });
    while (clock.advance(T0 + 11_000));
    const nodeType = api.store.typeOf('v1', 'Node');
    const node = api.store.get(nodeType, undefined, i.privateDnsName);
    api.store.update(nodeType, undefined, i.privateDnsName, { ...node, spec: { ...node.spec, taints: [] } }, { manager: 'nodewright' });
    api.store.patch(api.store.typeOf('apps/v1', 'Deployment'), 'default', 'inflate', 'application/merge-patch+json', { spec: { replicas: 1 } });
    // Act
    reconcileDeployments(api.store);
    reconcileDaemonSets(api.store);
    runScheduler(api.store);
    const pod = servedBytes(api, '/api/v1/namespaces/default/pods/inflate-0');
    const served = servedBytes(api, `/api/v1/nodes/${i.privateDnsName}`);
    // Assess
    expect(pod.body.status?.phase).toBe('Running');
    expect(pod.bytes).toBeGreaterThanOrEqual(5 * 1024);
    expect(served.bytes).toBeGreaterThanOrEqual(8 * 1024);
    expect(pod.body.metadata.managedFields).toBeDefined();
  });
});
