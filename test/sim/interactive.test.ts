import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startInteractive, type InteractiveSession } from '../../shared/sim';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';
import { findKubectl } from './fixtures/kubectl';

const kubectlBin = findKubectl();
if (!kubectlBin) console.warn('SKIPPED: the interactive-mode test needs a kubectl binary on PATH (Debian: apt-get install kubernetes-client)');

const SCENARIO = `
name: serve
objects: |
${objects(nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}']), NODE_CLASS, deployment('inflate', 'pause', '{cpu: "1"}'))}
`;

describe.skipIf(!kubectlBin)('interactive simulation (sim serve) with the real kubectl', () => {
  let dir: string;
  let session: InteractiveSession;
  const kubectl = async (...args: string[]) =>
    (
      await promisify(execFile)(kubectlBin as string, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
        encoding: 'utf8',
        timeout: 20_000,
      })
    ).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nodewright-serve-'));
    session = await startInteractive({
      scenario: parseScenario(SCENARIO, 'serve.yaml'),
      kubeconfigPath: join(dir, 'kubeconfig'),
      speed: 20,
      nodeStartupSeconds: 5,
      metricsPort: 0,
    });
  }, 30_000);

  afterAll(async () => {
    await session?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should launch a node and run the pods after kubectl scale', async () => {
    // Act
    const scaled = await kubectl('scale', 'deployment', 'inflate', '--replicas', '3');
    let pods = '';
    for (let i = 0; i < 60 && !/(Running[\s\S]*){3}/.test(pods); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      pods = await kubectl('get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName', '--no-headers');
    }
    const nodes = await kubectl('get', 'nodes', '-o', 'name');
    const claims = await kubectl('get', 'nodeclaims', '-o', 'name');
    // Assess
    expect(scaled).toContain('deployment.apps/inflate scaled');
    expect(pods.match(/Running/g)).toHaveLength(3);
    expect(nodes).toMatch(/^node\/ip-10-0-/m);
    expect(claims).toMatch(/^nodeclaim\.karpenter\.sh\/default-/m);
  }, 90_000);

  it("should show the NodePool's NODES and READY in kubectl get nodepools, from the status the functions write", async () => {
    // Act: the provisioner writes the status from the snapshot each of its invocations reads first.
    const claims = (await kubectl('get', 'nodeclaims', '-o', 'name')).split('\n').filter(Boolean).length;
    let row: string[] = [];
    for (let i = 0; i < 30 && !(row[2] === String(claims) && row[3] === 'True'); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
      row = (await kubectl('get', 'nodepools', '--no-headers')).trim().split(/\s+/);
    }
    // Assess: NAME NODECLASS NODES READY AGE
    expect(claims).toBeGreaterThan(0);
    expect(row.slice(0, 4)).toEqual(['default', 'default', String(claims), 'True']);
  }, 60_000);

  it("should serve Karpenter's metrics of the scale-up in Prometheus' text format on /metrics", async () => {
    // Act: the scale-up of the first test has happened.
    const res = await fetch(session.metricsUrl!);
    const text = await res.text();
    const other = await fetch(session.metricsUrl!.replace('/metrics', '/'));
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text).toContain('# TYPE karpenter_nodeclaims_created_total counter');
    expect(text).toMatch(/^karpenter_nodeclaims_created_total\{reason="provisioned",nodepool="default",min_values_relaxed="false"\} [1-9]/m);
    expect(text).toMatch(/^karpenter_nodes_created_total\{nodepool="default",zone="us-east-1[abc]"\} [1-9]/m);
    expect(text).toMatch(/^karpenter_scheduler_scheduling_duration_seconds_bucket\{le="\+Inf",controller="provisioner"\} [1-9]/m);
    // The controller saw the pods pending and then Ready.
    expect(text).toMatch(/^karpenter_pods_startup_duration_seconds_count [1-9]/m);
    expect(other.status).toBe(404);
  });

  it('should show the events of a scale-up in kubectl describe and kubectl get events', async () => {
    // Prepare: a running pod and its node claim.
    const pod = (await kubectl('get', 'pods', '-o', 'custom-columns=NAME:.metadata.name', '--no-headers')).trim().split('\n')[0].trim();
    const claim = (await kubectl('get', 'nodeclaims', '-o', 'custom-columns=NAME:.metadata.name', '--no-headers')).trim().split('\n')[0].trim();
    // Act
    const describedPod = await kubectl('describe', 'pod', pod);
    const describedClaim = await kubectl('describe', 'nodeclaim', claim);
    const all = await kubectl('get', 'events', '-o', 'custom-columns=KIND:.involvedObject.kind,REASON:.reason', '--no-headers');
    // Assess
    expect(describedPod).toMatch(/Normal\s+Nominated\s+.*karpenter\s+Pod should schedule on: nodeclaim\/default-/);
    expect(describedClaim).toMatch(/Normal\s+Launched\s+.*Launched aws:\/\/\//);
    expect(describedClaim).toMatch(/Normal\s+Registered\s+.*Registered node\/ip-10-0-/);
    expect(describedClaim).toMatch(/Normal\s+Initialized\s+.*Initialized node\/ip-10-0-/);
    expect(all).toMatch(/Pod\s+Nominated/);
  }, 60_000);

  it('should answer what a Karpenter user types as a real API server does: get events, get all, cluster-info, rollout status, explain', async () => {
    // Act
    const events = await kubectl('get', 'events');
    const all = await kubectl('get', 'all');
    const info = await kubectl('cluster-info');
    const rollout = await kubectl('rollout', 'status', 'deployment/inflate', '--timeout=15s');
    const explain = await kubectl('explain', 'nodepool.spec.disruption');

    // Assess
    expect(
      events
        .split('\n')[0]
        .trim()
        .split(/\s{2,}/),
    ).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(events).toMatch(/Normal\s+Launched\s+nodeclaim\/default-\S+\s+Launched aws:\/\/\//);
    expect(all).toMatch(/^pod\/inflate-/m);
    expect(all).toMatch(/^service\/kubernetes\s+ClusterIP/m);
    expect(all).toMatch(/^deployment\.apps\/inflate/m);
    expect(info).toMatch(/Kubernetes control plane.* is running at .*https:\/\/127\.0\.0\.1:/);
    expect(rollout).toMatch(/deployment "inflate" successfully rolled out/);
    expect(explain).toMatch(/KIND:\s+NodePool/);
    expect(explain).toMatch(/budgets\s+<\[\]Object>/);
    expect(explain).toMatch(/consolidateAfter\s+<string>/);
  }, 60_000);

  it("should show the EC2NodeClass Ready with what it resolved, from garbage collection's status writes", async () => {
    // Act: garbage collection runs every 2 simulated minutes (6 s at speed 20).
    let nc: {
      status?: { subnets?: unknown[]; securityGroups?: unknown[]; amis?: unknown[]; instanceProfile?: string; conditions?: { type: string; status: string }[] };
    } = {};
    for (let i = 0; i < 30 && !nc.status?.conditions?.some((c) => c.type === 'Ready'); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
      nc = JSON.parse(await kubectl('get', 'ec2nodeclass', 'default', '-o', 'json'));
    }
    const table = (await kubectl('get', 'ec2nodeclasses', '--no-headers')).trim().split(/\s+/);
    // Assess: NAME READY AGE
    expect(table.slice(0, 2)).toEqual(['default', 'True']);
    expect(nc.status?.conditions?.map((c) => [c.type, c.status])).toEqual(
      expect.arrayContaining([
        ['SubnetsReady', 'True'],
        ['SecurityGroupsReady', 'True'],
        ['AMIsReady', 'True'],
        ['InstanceProfileReady', 'True'],
        ['ValidationSucceeded', 'True'],
        ['Ready', 'True'],
      ]),
    );
    expect(nc.status?.subnets?.length).toBeGreaterThan(0);
    expect(nc.status?.securityGroups?.length).toBeGreaterThan(0);
    expect(nc.status?.amis?.length).toBeGreaterThan(0);
  }, 60_000);

  /** Polls until the node and its claim are gone and the 3 pods run elsewhere; the pods table at the end. */
  async function waitGoneAndRescheduled(node: string, claim: string): Promise<{ pods: string; nodes: string; claims: string }> {
    let state = { pods: '', nodes: '', claims: '' };
    const done = () =>
      !state.nodes.includes(node) && !state.claims.includes(claim) && (state.pods.match(/Running/g) ?? []).length === 3 && !state.pods.includes(node);
    for (let i = 0; i < 50 && !done(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      state = {
        pods: await kubectl('get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName', '--no-headers'),
        nodes: await kubectl('get', 'nodes', '-o', 'name'),
        claims: await kubectl('get', 'nodeclaims', '-o', 'name'),
      };
    }
    return state;
  }

  const placement = async () => {
    const pods = await kubectl('get', 'pods', '-o', 'custom-columns=NODE:.spec.nodeName', '--no-headers');
    const node = pods.trim().split('\n')[0].trim();
    const claim =
      (await kubectl('get', 'nodeclaims', '-o', 'custom-columns=NAME:.metadata.name,NODE:.status.nodeName', '--no-headers'))
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .find(([, n]) => n === node)?.[0] ?? '';
    return { node, claim };
  };

  it('should drain and let go after kubectl delete nodeclaim, then after kubectl delete node', async () => {
    // Prepare
    const first = await placement();
    // Act
    const deletedClaim = await kubectl('delete', 'nodeclaim', first.claim, '--wait=false');
    const afterClaim = await waitGoneAndRescheduled(first.node, first.claim);
    const second = await placement();
    const deletedNode = await kubectl('delete', 'node', second.node, '--wait=false');
    const afterNode = await waitGoneAndRescheduled(second.node, second.claim);
    // Assess
    expect(first.claim).toMatch(/^default-/);
    expect(deletedClaim).toContain(`nodeclaim.karpenter.sh "${first.claim}" deleted`);
    expect(afterClaim.claims).not.toContain(first.claim);
    expect(afterClaim.nodes).not.toContain(first.node);
    expect(afterClaim.pods.match(/Running/g)).toHaveLength(3);
    expect(second.node).not.toBe(first.node);
    expect(deletedNode).toContain(`node "${second.node}" deleted`);
    expect(afterNode.claims).not.toContain(second.claim);
    expect(afterNode.nodes).not.toContain(second.node);
    expect(afterNode.pods.match(/Running/g)).toHaveLength(3);
    expect(afterNode.pods).not.toContain(second.node);
  }, 120_000);
});
