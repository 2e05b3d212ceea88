import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startInteractive, type InteractiveSession } from '../../shared/sim';

function findKubectl(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const kubectlBin = findKubectl();
if (!kubectlBin) console.warn('SKIPPED: the interactive-mode test needs a kubectl binary on PATH (Debian: apt-get install kubernetes-client)');

const SCENARIO = `
name: serve
objects: |
  apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        requirements:
          - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  ---
  apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "\${CLUSTER_NAME}"}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: "\${CLUSTER_NAME}"}}]
  ---
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: inflate, image: pause, resources: {requests: {cpu: "1"}}}]
`;

describe.skipIf(!kubectlBin)('interactive simulation (sim serve) with the real kubectl', () => {
  let dir: string;
  let session: InteractiveSession;
  const kubectl = async (...args: string[]) =>
    (await promisify(execFile)(kubectlBin as string, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], { encoding: 'utf8', timeout: 20_000 })).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nodewright-serve-'));
    session = await startInteractive({ scenario: parseScenario(SCENARIO, 'serve.yaml'), kubeconfigPath: join(dir, 'kubeconfig'), speed: 20, nodeStartupSeconds: 5 });
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
});
