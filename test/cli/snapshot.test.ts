/**
 * `nodewright snapshot` and `simulate --kubeconfig`: a running cluster (the simulator's API server, reached through a
 * kubeconfig as kubectl would) written as a scenario and replayed offline — its NodePools, workloads and nodes, the
 * nodes Karpenter launched adopted as such — with nothing written to the cluster.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, worldForScenario, type SimWorld } from '../../shared/sim';
import { writeKubeconfig } from '../../shared/sim/kube/server';
import { applyObjects } from '../../shared/sim/scenario/events';
import { seedFleet } from '../../shared/sim/scenario/fleet';
import { kubeTypes, listAll } from '../../shared/sim/cluster/kube-objects';
import { runFor } from '../sim/fixtures/time';
import { deployment, NODE_CLASS, nodePool, objects } from '../sim/fixtures/objects';
import { runCli } from './run';
import { findKubectl } from '../sim/fixtures/kubectl';

const kubectlBin = findKubectl();

const PDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}`;

const SCENARIO = `
name: running
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}', '{key: kubernetes.io/arch, operator: In, values: [amd64]}']), NODE_CLASS, deployment('web', 'nginx', '{cpu: "1", memory: 1Gi}', 7), PDB)}
fleet:
  - {nodePool: default, instanceType: m6i.xlarge, count: 2, launchedBy: karpenter}
  - {nodePool: default, instanceType: m6i.large, count: 1}
`;

type Scenario = ReturnType<typeof parseScenario>;

/** The built CLI in a child process, while this one keeps serving the cluster. */
function runBuilt(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [fileURLToPath(new URL('../../bin/nodewright.mjs', import.meta.url)), ...argv], { maxBuffer: 64 << 20 }, (e, stdout, stderr) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('a running cluster as a scenario (read-only)', () => {
  let world: SimWorld;
  let dir: string;
  let kubeconfig: string;
  const state = () => {
    const store = world.api.store;
    const t = kubeTypes(store);
    return JSON.stringify([t.pod, t.node, t.nodeClaim, store.typeOf('karpenter.sh/v1', 'NodePool'), t.deployment].map((rt) => listAll(store, rt)));
  };

  beforeAll(async () => {
    const scenario = parseScenario(SCENARIO, 'running.yaml');
    world = await worldForScenario(scenario);
    applyObjects(world, scenario.objects);
    await seedFleet(world, scenario);
    await runFor(world, 60);
    // A node of a managed node group (no NodeClaim), with a pod of its own.
    const store = world.api.store;
    const t = kubeTypes(store);
    store.create(t.node, undefined, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'mng-node', labels: { 'eks.amazonaws.com/nodegroup': 'system', 'topology.kubernetes.io/zone': 'us-east-1a' } },
      status: { allocatable: { cpu: '2', memory: '4Gi', pods: '29' }, capacity: { cpu: '2', memory: '4Gi', pods: '29' } },
    });
    store.create(t.pod, 'kube-system', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'coredns-1', namespace: 'kube-system' },
      spec: { nodeName: 'mng-node', containers: [{ name: 'coredns', image: 'coredns', resources: { requests: { cpu: '100m' } } }] },
      status: { phase: 'Running' },
    });
    dir = mkdtempSync(join(tmpdir(), 'nodewright-snapshot-'));
    kubeconfig = join(dir, 'kubeconfig');
    // As `sim serve` writes it: a token, or kubectl prompts for a username (the server checks none).
    writeKubeconfig(kubeconfig, { server: world.server.url, ...(world.server.caData ? { caData: world.server.caData } : {}), token: 'sim' });
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should write its pools, workloads and NodePool-launched nodes as a scenario, say what it left out, and write nothing to it', async () => {
    // Prepare
    const before = state();
    const file = join(dir, 'snapshot.yaml');
    // Act
    const r = await runCli('snapshot', '--kubeconfig', kubeconfig, '-o', file, '--duration', '10m');
    // Assess
    expect(r.code).toBe(0);
    expect(state()).toBe(before);
    expect(r.stderr).toContain('nothing was written to it');
    expect(r.stderr).toContain('note: 1 node(s) no NodePool launched (a managed node group, Fargate) are not replayed, nor the pods bound to them');
    const s: Scenario = parseScenario(readFileSync(file, 'utf8'), file);
    expect(s.durationSeconds).toBe(600);
    // The two nodes Karpenter launched were adopted in the first minute: their claims carry nodewright's hashes now.
    expect(s.fleet.map((e) => [e.instanceType, e.launchedBy, e.count]).sort()).toEqual([
      ['m6i.large', 'nodewright', 1],
      ['m6i.xlarge', 'nodewright', 1],
      ['m6i.xlarge', 'nodewright', 1],
    ]);
    const kinds = s.objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).toEqual(expect.arrayContaining(['NodePool/default', 'EC2NodeClass/default', 'PodDisruptionBudget/web', 'Deployment/web']));
    expect(kinds.filter((k) => k.startsWith('Deployment/'))).toEqual(['Deployment/web']);
    const web = s.objects.find((o) => o.kind === 'Deployment')!;
    expect((web.spec as { replicas: number }).replicas).toBe(7);
  }, 60_000);

  it('should replay the cluster offline: the adopted nodes keep their pods, nothing launches, drifts or is lost', async () => {
    // Act
    // Another process, as a user runs it (one simulation per process: this one serves the cluster).
    const r = await runBuilt('simulate', '--kubeconfig', kubeconfig, '--duration', '10m', '-o', 'json');
    // Assess
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      nodes: { launchedAt: number }[];
      disruptions: { reason: string }[];
      final: Record<string, number>;
      violations: Record<string, number>;
    };
    expect(result.nodes.filter((n) => n.launchedAt === 0)).toHaveLength(3);
    expect(result.disruptions.filter((d) => d.reason === 'drifted')).toEqual([]);
    expect(result.final).toMatchObject({ pendingPods: 0, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(result.violations).toEqual({ pdb: 0, doNotDisrupt: 0, podsLost: 0 });
  }, 300_000);

  it.skipIf(!kubectlBin)(
    'should read what the real kubectl changed: a Deployment scaled with kubectl scale is replayed at its new size',
    async () => {
      // Act: the user scales through kubectl, the cluster's controllers catch up, then the snapshot is taken.
      await promisify(execFile)(
        kubectlBin as string,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kubectl-cache'), 'scale', 'deployment', 'web', '--replicas', '9'],
        {
          timeout: 20_000,
        },
      );
      await runFor(world, 5);
      const nodes = (
        await promisify(execFile)(kubectlBin as string, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kubectl-cache'), 'get', 'nodes', '-o', 'name'], {
          timeout: 20_000,
        })
      ).stdout
        .trim()
        .split('\n');
      const r = await runCli('snapshot', '--kubeconfig', kubeconfig);
      // Assess
      expect(r.code).toBe(0);
      const s: Scenario = parseScenario(r.stdout, 'stdout.yaml');
      const web = s.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'web')!;
      expect((web.spec as { replicas: number }).replicas).toBe(9);
      // Every node kubectl lists is in the fleet but the managed node group's.
      expect(s.fleet.reduce((n, e) => n + e.count, 0)).toBe(nodes.length - 1);
    },
    60_000,
  );

  it('should refuse a scenario file and a cluster together, and a simulate given neither', async () => {
    const both = await runCli('simulate', 'x.yaml', '--kubeconfig', kubeconfig);
    const neither = await runCli('simulate');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give a scenario file or --kubeconfig / --context (the running cluster), not both');
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give a scenario file');
  });
});
