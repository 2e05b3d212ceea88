/**
 * `plan` and `explain --node` on a running cluster say what the disruption function would do now: here the
 * simulator's cluster after nodewright launched a node for two pods, which then went away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';
import { writeKubeconfig } from '../../shared/sim/kube/server';
import { applyObjects } from '../../shared/sim/scenario/events';
import { kubeTypes, listAll } from '../../shared/sim/cluster/kube-objects';
import { runFor } from '../sim/fixtures/time';
import { deployment, NODE_CLASS, nodePool, objects } from '../sim/fixtures/objects';
import { runCli } from './run';

const SCENARIO = `
name: live-consolidation
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS, deployment('inflate', 'pause', '{cpu: "1"}', 2))}
`;

describe('what disruption would do now, on a running cluster', () => {
  let world: SimWorld;
  let dir: string;
  let kubeconfig: string;
  let node: string;

  beforeAll(async () => {
    const scenario = parseScenario(SCENARIO, 'live-consolidation.yaml');
    // Its clock 10 minutes behind the wall clock `plan` reads: the node's pods left minutes ago, and it is not expired
    world = await worldForScenario(scenario, { startMs: Date.now() - 600_000 });
    applyObjects(world, scenario.objects);
    await runFor(world, 180);
    const store = world.api.store;
    const types = kubeTypes(store);
    node = String(listAll(store, types.node)[0]?.metadata.name);
    // The workload goes away (no time passes: nodewright has not seen it yet)
    const inflate = listAll(store, types.deployment)[0];
    store.update(types.deployment, 'default', 'inflate', { ...inflate, spec: { ...(inflate.spec as object), replicas: 0 } });
    for (const p of listAll(store, types.pod).filter((p) => p.metadata.labels?.app === 'inflate'))
      store.delete(types.pod, 'default', String(p.metadata.name), { gracePeriodSeconds: 0 });
    dir = mkdtempSync(join(tmpdir(), 'nodewright-live-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: world.server.url, ...(world.server.caData ? { caData: world.server.caData } : {}) });
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should say that the emptied node would be deleted now, and why for that node', async () => {
    // Act
    const plan = await runCli('plan', '--kubeconfig', kubeconfig);
    const json = await runCli('plan', '--kubeconfig', kubeconfig, '-o', 'json');
    const why = await runCli('explain', '--kubeconfig', kubeconfig, '--node', node);
    const unknown = await runCli('explain', '--kubeconfig', kubeconfig, '--node', 'no-such-node');
    // Assess
    expect(plan.stdout).toContain(`Consolidation now: empty (emptiness) would delete ${node}, saving $`);
    expect(JSON.parse(json.stdout).consolidation).toMatchObject({ command: { reason: 'empty', action: 'delete', nodes: [node] } });
    expect(why.stdout.split('\n')[0]).toBe(`${node}: would be disrupted now — empty (emptiness), delete`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/node no-such-node is not a node with a NodeClaim in the given cluster/);
  });

  it("should read the cluster's NodeOverlays and CapacityBuffers: the fleet at the overlay's price, and a node holding a chunk kept", async () => {
    // Prepare
    const before = JSON.parse((await runCli('plan', '--kubeconfig', kubeconfig, '--offline', '-o', 'json')).stdout);
    applyObjects(world, [
      { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'discount' }, spec: { requirements: [], priceAdjustment: '-50%' } },
      {
        apiVersion: 'v1',
        kind: 'PodTemplate',
        metadata: { name: 'chunk', namespace: 'default' },
        template: { metadata: { labels: { app: 'chunk' } }, spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '1' } } }] } },
      },
      {
        apiVersion: 'autoscaling.x-k8s.io/v1beta1',
        kind: 'CapacityBuffer',
        metadata: { name: 'headroom', namespace: 'default' },
        spec: { podTemplateRef: { name: 'chunk' }, replicas: 1 },
      },
    ]);
    // Act
    const after = JSON.parse((await runCli('plan', '--kubeconfig', kubeconfig, '--offline', '-o', 'json')).stdout);
    // Assess
    expect(after.fleet.pricePerHour).toBeCloseTo(before.fleet.pricePerHour / 2, 6);
    expect(before.consolidation.command.nodes).toEqual([node]);
    expect(after.consolidation.command).toBeUndefined();
  });
});
