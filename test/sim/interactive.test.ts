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
