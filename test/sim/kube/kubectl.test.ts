import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeKubeApi, serveForKubectl, type FakeKubeApi, type RunningKubeServer } from '../../../shared/sim/kube';
import { deploymentJson, nodeJson, nodePoolJson, T0 } from './fixtures';
import { findKubectl } from '../fixtures/kubectl';

const kubectlBin = findKubectl();
if (!kubectlBin) console.warn('SKIPPED: the real-kubectl test needs a kubectl binary on PATH (Debian: apt-get install kubernetes-client)');

describe.skipIf(!kubectlBin)('fake API server over HTTPS with the real kubectl', () => {
  let api: FakeKubeApi;
  let server: RunningKubeServer;
  let dir: string;
  // Asynchronous on purpose: the server runs in this process, so a synchronous spawn would block it.
  const kubectl = async (...args: string[]) =>
    (
      await promisify(execFile)(kubectlBin as string, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
        encoding: 'utf8',
        timeout: 20_000,
      })
    ).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nodewright-kubectl-'));
    api = createFakeKubeApi({ clock: () => T0, token: 'kubectl-token' });
    const s = api.store;
    s.create(s.typeOf('v1', 'Node'), undefined, nodeJson('ip-10-0-1-1.ec2.internal'));
    s.create(s.typeOf('karpenter.sh/v1', 'NodePool'), undefined, nodePoolJson('default'));
    s.create(s.typeOf('apps/v1', 'Deployment'), 'default', deploymentJson('inflate', 0));
    api.apply({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name: 'default-abcde',
        labels: { 'node.kubernetes.io/instance-type': 'm5.large', 'karpenter.sh/capacity-type': 'spot', 'topology.kubernetes.io/zone': 'us-east-1a' },
      },
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    });
    server = await serveForKubectl(api, { kubeconfigPath: join(dir, 'kubeconfig') });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("should answer kubectl api-resources with every group, Karpenter's included", async () => {
    // Act
    const out = await kubectl('api-resources');
    // Assess
    const rows = out
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual(
      expect.arrayContaining(['pods', 'nodes', 'nodepools', 'nodeclaims', 'ec2nodeclasses', 'deployments', 'poddisruptionbudgets']),
    );
    expect(rows.find((r) => r[0] === 'nodepools')).toEqual(['nodepools', 'karpenter.sh/v1', 'false', 'NodePool']);
  });

  it('should list nodes and nodepools with kubectl get', async () => {
    // Act
    const out = await kubectl('get', 'nodes,nodepools,nodeclaims', '-o', 'name');
    // Assess
    expect(out.split('\n').filter(Boolean)).toEqual(['node/ip-10-0-1-1.ec2.internal', 'nodepool.karpenter.sh/default', 'nodeclaim.karpenter.sh/default-abcde']);
  });

  it('should reject a NodePool with an unknown requirement operator at kubectl apply, naming the field', async () => {
    // Prepare: the NodePool a user mistyped (operator "Inn").
    writeFileSync(
      join(dir, 'bad-pool.yaml'),
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bad}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: Inn, values: [spot]}
`,
    );
    // Act
    const failure = await kubectl('apply', '-f', join(dir, 'bad-pool.yaml')).then(
      () => undefined,
      (e: { stderr: string }) => e.stderr,
    );
    // Assess: rejected as on EKS, and nothing was created.
    // kubectl words the API server's 422 (NodePool.karpenter.sh "bad" is invalid: …) as on EKS.
    expect(failure).toContain(
      'The NodePool "bad" is invalid: spec.template.spec.requirements[0].operator: Unsupported value: "Inn": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"',
    );
    expect(await kubectl('get', 'nodepools', '-o', 'name')).not.toContain('nodepool.karpenter.sh/bad');
  });

  it("should reject an EC2NodeClass that breaks one of Karpenter's CEL rules at kubectl apply, with Karpenter's message", async () => {
    // Prepare: an alias without a version.
    writeFileSync(
      join(dir, 'bad-class.yaml'),
      `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: bad}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`,
    );
    // Act
    const failure = await kubectl('apply', '-f', join(dir, 'bad-class.yaml')).then(
      () => undefined,
      (e: { stderr: string }) => e.stderr,
    );
    // Assess
    expect(failure).toContain(
      `The EC2NodeClass "bad" is invalid: spec.amiSelectorTerms[0].alias: Invalid value: "string": 'alias' is improperly formatted, must match the format 'family@version'`,
    );
    expect(await kubectl('get', 'ec2nodeclasses', '-o', 'name')).not.toContain('bad');
  });

  it('should print NODES and READY for nodepools from the status the functions write', async () => {
    // Prepare: the status as reconcileNodePoolStatuses writes it (through the status subresource).
    const status = {
      resources: { cpu: '4', memory: '16Gi', pods: '58', 'ephemeral-storage': '0', nodes: '2' },
      nodes: 2,
      conditions: [
        { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'NodeClassReady', status: 'True', reason: 'NodeClassReady', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    };
    await kubectl('patch', 'nodepool', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
    // Act
    const out = await kubectl('get', 'nodepools');
    // Assess
    const [header, row] = out.split('\n').map((l) => l.trim().split(/\s+/));
    expect(header).toEqual(['NAME', 'NODECLASS', 'NODES', 'READY', 'AGE']);
    expect(row.slice(0, 4)).toEqual(['default', 'default', '2', 'True']);
  });

  it('should print the Karpenter printer columns for nodeclaims', async () => {
    // Act
    const out = await kubectl('get', 'nodeclaims');
    // Assess
    const [header, row] = out.split('\n').map((l) => l.trim().split(/\s+/));
    expect(header).toEqual(['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE']);
    expect(row.slice(0, 4)).toEqual(['default-abcde', 'm5.large', 'spot', 'us-east-1a']);
  });

  it('should create, then update, then delete objects with kubectl apply and kubectl delete', async () => {
    // Prepare
    const manifest = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: pause, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: spot}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
`;
    const file = join(dir, 'web.yaml');
    // Act
    writeFileSync(file, manifest(1));
    const created = await kubectl('apply', '-f', file);
    writeFileSync(file, manifest(4));
    const configured = await kubectl('apply', '-f', file);
    const replicas = await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}');
    const deleted = await kubectl('delete', 'deployment', 'web');
    // Assess
    expect(created).toContain('deployment.apps/web created');
    expect(created).toContain('nodepool.karpenter.sh/spot created');
    expect(configured).toContain('deployment.apps/web configured');
    expect(replicas).toBe('4');
    expect(deleted).toContain('deployment.apps "web" deleted');
  });

  it('should scale a deployment with kubectl scale', async () => {
    // Act
    const out = await kubectl('scale', 'deployment', 'inflate', '--replicas', '5');
    const replicas = await kubectl('get', 'deployment', 'inflate', '-o', 'jsonpath={.spec.replicas}');
    // Assess
    expect(out).toContain('deployment.apps/inflate scaled');
    expect(replicas).toBe('5');
  });

  it("should scale a static NodePool with kubectl scale (the CRD's scale subresource)", async () => {
    // Prepare
    api.apply({ ...nodePoolJson('static'), spec: { ...(nodePoolJson('static').spec as object), replicas: 2 } });
    // Act
    const out = await kubectl('scale', 'nodepool', 'static', '--replicas', '4');
    const replicas = await kubectl('get', 'nodepool', 'static', '-o', 'jsonpath={.spec.replicas}');
    // Assess
    expect(out).toContain('nodepool.karpenter.sh/static scaled');
    expect(replicas).toBe('4');
  });
});
