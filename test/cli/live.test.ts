/**
 * `plan` and `explain` on a running cluster (`--kubeconfig`, `--context`): the simulator's API server stands for it,
 * reached over HTTP through a kubeconfig as kubectl would; nothing may be written to it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';
import { writeKubeconfig } from '../../shared/sim/kube/server';
import { applyObjects } from '../../shared/sim/scenario/events';
import { kubeTypes, listAll } from '../../shared/sim/cluster/kube-objects';
import { NODE_CLASS, nodePool, objects } from '../sim/fixtures/objects';
import { runCli } from './run';

const SCENARIO = `
name: live
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS)}
`;

describe('plan and explain on a running cluster (read-only)', () => {
  let world: SimWorld;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    const scenario = parseScenario(SCENARIO, 'live.yaml');
    world = await worldForScenario(scenario);
    applyObjects(world, scenario.objects);
    const pods = world.api.store.typeOf('v1', 'Pod');
    for (let i = 0; i < 3; i++) {
      world.api.store.create(pods, 'default', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '1', memory: '1Gi' } } }] },
        status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
      });
    }
    dir = mkdtempSync(join(tmpdir(), 'nodewright-live-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, { server: world.server.url, ...(world.server.caData ? { caData: world.server.caData } : {}), name: 'sim' });
  }, 30_000);

  afterAll(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("should plan the cluster's pending pods on its NodePools, say what it read, and write nothing", async () => {
    // Prepare
    const before = JSON.stringify(listAll(world.api.store, kubeTypes(world.api.store).pod));
    // Act
    const r = await runCli('plan', '--kubeconfig', kubeconfig, '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { nodeClaims: { nodePool: string; pods: string[] }[]; unschedulable: unknown[] };
    expect(plan.nodeClaims.flatMap((c) => c.pods).sort()).toEqual(['default/web-0', 'default/web-1', 'default/web-2']);
    expect(plan.nodeClaims.every((c) => c.nodePool === 'default')).toBe(true);
    expect(r.stderr).toMatch(
      /^read cluster https?:\/\/127\.0\.0\.1:\d+: 1 NodePools, 1 EC2NodeClasses, 0 nodes, 0 NodeClaims, 3 pods \(3 pending\); nothing was written$/m,
    );
    // With credentials (here the simulated AWS of this process), the types and prices are AWS's, as deployed.
    expect(r.stderr).toMatch(
      /^instance types and prices from AWS in us-east-1: \d+ instance types, \d+ on-demand prices \(Price List API\), \d+ spot prices \(DescribeSpotPriceHistory\)$/m,
    );
    expect((plan as { pricing?: object }).pricing).toEqual({ region: 'us-east-1', onDemand: 'aws', spot: 'aws' });
    expect(JSON.stringify(listAll(world.api.store, kubeTypes(world.api.store).pod))).toBe(before);
    expect(listAll(world.api.store, kubeTypes(world.api.store).nodeClaim)).toEqual([]);
  });

  it('should use the bundled catalog with --offline, and say so', async () => {
    // Act
    const r = await runCli('plan', '--kubeconfig', kubeconfig, '--offline', '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^instance types and prices: the bundled catalog \(--offline\)/m);
    expect((JSON.parse(r.stdout) as { pricing: object }).pricing).toEqual({ region: 'us-east-1', onDemand: 'list', spot: 'estimate' });
  });

  it('should explain one live pending pod, and refuse a context the kubeconfig does not have (exit 2)', async () => {
    // Act
    const one = await runCli('explain', '--kubeconfig', kubeconfig, '--context', 'sim', '--pod', 'default/web-1');
    const bad = await runCli('plan', '--kubeconfig', kubeconfig, '--context', 'prod');
    const none = await runCli('plan');
    // Assess
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^default\/web-1: scheduled on new node #1 \(nodepool default/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/kubeconfig has no context "prod" \(it has: sim\)/);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give -f FILE \(repeatable\), or --kubeconfig FILE \/ --context NAME/);
  });

  it('should let -f files replace the cluster objects of the same name (a NodePool changed before it is applied)', async () => {
    // Prepare: the same NodePool, restricted to a family the cluster's does not restrict to
    const file = join(dir, 'pool.yaml');
    writeFileSync(file, nodePool('default', ['{key: karpenter.k8s.aws/instance-family, operator: In, values: [r6i]}']));
    // Act
    const r = await runCli('plan', '--kubeconfig', kubeconfig, '-f', file, '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { nodeClaims: { instanceTypes: string[] }[] };
    expect(plan.nodeClaims.length).toBeGreaterThan(0);
    expect(plan.nodeClaims.every((c) => c.instanceTypes.every((t) => t.startsWith('r6i.')))).toBe(true);
  });
});
