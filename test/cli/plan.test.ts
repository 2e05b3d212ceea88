/** `nodewright plan` as a user runs it: in-process through main(argv), and once as a real child process. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, type CliRun } from './run';
import type { PlanJson } from '../../shared/core/provisioning/plan-json';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = `${ROOT}examples/inflate.yaml`;
const fixture = (name: string) => `${ROOT}test/fixtures/manifests/${name}`;

const run = runCli;

const json = (r: CliRun) => JSON.parse(r.stdout) as PlanJson;
const claimWith = (p: PlanJson, pod: string) => p.nodeClaims.find((c) => c.pods.includes(pod));

afterEach(() => vi.restoreAllMocks());

describe('nodewright plan', () => {
  it('should plan the seed walkthrough at 5 replicas as one on-demand c6a.2xlarge at $0.306/h', async () => {
    // Act
    const r = await run('plan', '-f', SEED, '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.nodeClaims).toHaveLength(1);
    expect(plan.nodeClaims[0]).toMatchObject({ nodePool: 'default', capacityType: 'on-demand', pricePerHour: 0.306 });
    expect(plan.nodeClaims[0].instanceTypes[0]).toBe('c6a.2xlarge');
    expect(plan.summary).toMatchObject({ pods: 5, scheduled: 5, nodeClaims: 1, pricePerHour: 0.306 });
    expect(plan.unschedulable).toEqual([]);
    expect(r.stderr).toBe('');
  });

  it('should plan with NodeOverlays: the overlay price with EC2 price beside it, huge pages declared, a conflicting overlay named', async () => {
    // Act
    const r = await run('plan', '-f', `${ROOT}examples/node-overlay.yaml`, '-o', 'json');
    const table = await run('plan', '-f', `${ROOT}examples/node-overlay.yaml`);
    const rival = join(mkdtempSync(join(tmpdir(), 'nw-')), 'rival.yaml');
    writeFileSync(
      rival,
      'apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: a-rival}\nspec:\n  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}]\n  price: "0.01"\n',
    );
    const conflicted = await run('plan', '-f', `${ROOT}examples/node-overlay.yaml`, '-f', rival, '-o', 'json');
    // Assess: without the overlays the db pods (hugepages-2Mi) would stay pending and the web pods land on c-family types.
    expect(r.code).toBe(0);
    const claim = json(r).nodeClaims[0];
    expect(claim.instanceTypes[0]).toMatch(/^m7i\./);
    expect(claim.overlays).toEqual({ price: { nodeOverlay: 'savings-plan-m7i', ec2PricePerHour: expect.any(Number) }, capacity: ['hugepages'] });
    expect(claim.pricePerHour).toBeCloseTo(claim.overlays!.price!.ec2PricePerHour * 0.6, 6);
    expect(json(r).unschedulable).toEqual([]);
    expect(table.stdout).toMatch(/\$\d+\.\d{4}\*/);
    expect(table.stdout).toContain("instead of EC2's");
    expect(table.stdout).toContain('Extended resources from NodeOverlay hugepages');
    // a-rival (weight 0) and savings-plan-m7i (weight 0 too in this file) price the same offerings: the name later in the alphabet wins.
    expect(conflicted.stderr).toContain('nodeoverlay "a-rival" is not applied (Conflict): conflicts with NodeOverlay savings-plan-m7i');
  });

  it("should plan a CapacityBuffer's chunks as headroom beside the pods, and say so", async () => {
    // Prepare: 50 % of a 4-replica Deployment, as Cluster Autoscaler reads it: 2 chunks of its pod template.
    const file = join(mkdtempSync(join(tmpdir(), 'nw-')), 'buffer.yaml');
    writeFileSync(
      file,
      [
        readFileSync(SEED, 'utf8'),
        '---',
        'apiVersion: autoscaling.x-k8s.io/v1beta1',
        'kind: CapacityBuffer',
        'metadata: {name: headroom, namespace: default}',
        'spec: {scalableRef: {apiGroup: apps, kind: Deployment, name: inflate}, percentage: 50}',
      ].join('\n'),
    );
    // Act
    const r = await run('plan', '-f', file, '-o', 'json');
    const table = await run('plan', '-f', file);
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.nodeClaims.flatMap((c) => c.bufferPods ?? []).sort()).toEqual([
      'default/headroom-buffer-0',
      'default/headroom-buffer-1',
      'default/headroom-buffer-2',
    ]);
    expect(plan.nodeClaims.flatMap((c) => c.pods)).toHaveLength(5);
    expect(plan.summary.scheduled).toBe(5);
    expect(table.stdout).toContain('CapacityBuffer chunk(s) kept as headroom');
  });

  it('should plan on-demand capacity in a region the catalog has no prices for, and say the prices are estimates', async () => {
    // Act
    const r = await run('plan', '-f', SEED, '--region', 'eu-west-1', '-o', 'json');
    const table = await run('plan', '-f', SEED, '--region', 'eu-west-1');
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.nodeClaims).toHaveLength(1);
    expect(plan.nodeClaims[0]).toMatchObject({ capacityType: 'on-demand', pricePerHour: 0.306 });
    expect(plan.pricing).toMatchObject({ region: 'eu-west-1', onDemand: 'estimate', spot: 'estimate' });
    expect(r.stderr).toContain('prices for eu-west-1 are estimates');
    expect(table.stdout).toContain('Prices are estimates for eu-west-1');
  });

  it('should refuse a region that is not a region code with exit 2, naming the option', async () => {
    // Act
    const r = await run('plan', '-f', SEED, '--region', 'mars');
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--region: "mars" is not an AWS region code');
    expect(r.stdout).toBe('');
  });

  it('should print a table by default with the node, its price and the totals', async () => {
    // Act
    const r = await run('plan', '-f', SEED);
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^default\s+c6a\.2xlarge\s+on-demand\s+\(any\)\s+5\s+\$0\.3060/m);
    expect(r.stdout).toContain('Total: 5 pending pod(s), 5 scheduled, 0 pending; 1 new node(s) at $0.3060/h');
  });

  it('should list the pods that stay pending, with the reason, in the table', async () => {
    // Act
    const r = await run('plan', '-f', fixture('zone-pinned.yaml'), '--zones', 'us-east-1c');
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Pods that stay pending:');
    expect(r.stdout).toMatch(/^default\/pinned\s+nodepool "default": /m);
    expect(r.stdout).toContain('Total: 2 pending pod(s), 1 scheduled, 1 pending; 1 new node(s)');
  });

  it('should refuse an invalid NodePool with one message naming file, document and field, and plan nothing', async () => {
    // Act
    const r = await run('plan', '-f', fixture('invalid-nodepool.yaml'), '-o', 'json');
    // Assess
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('invalid-nodepool.yaml');
    expect(lines[0]).toContain('document 2');
    expect(lines[0]).toContain('spec.template.spec.requirements[1].operator');
    expect(lines[0]).toContain('"Sometimes"');
  });

  it('should use an explicit --instance-types file: allocatable as is, zones from its offerings', async () => {
    // Act: four pods asking for exactly 4 CPU / 8Gi; tiny.custom's allocatable is exactly that.
    const r = await run('plan', '-f', fixture('four-pods.yaml'), '--instance-types', fixture('custom-types.json'), '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.nodeClaims).toHaveLength(1);
    expect(plan.nodeClaims[0]).toMatchObject({
      nodePool: 'general',
      instanceTypes: ['tiny.custom', 'big.custom'],
      pricePerHour: 0.05,
      resources: { cpu: '4', memory: '8Gi', pods: '4' },
    });
  });

  it('should take the zones of explicit instance types from their offerings', async () => {
    // Act: tiny.custom is only offered in us-east-1b, so the pod pinned to us-east-1a needs big.custom.
    const r = await run('plan', '-f', fixture('zone-pinned.yaml'), '--instance-types', fixture('custom-types.json'), '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const pinned = claimWith(json(r), 'default/pinned');
    expect(pinned?.zone).toBe('us-east-1a');
    expect(pinned?.instanceTypes).toEqual(['big.custom']);
  });

  it('should offer only the zones given with --zones', async () => {
    // Act
    const r = await run('plan', '-f', fixture('zone-pinned.yaml'), '--zones', 'us-east-1c', '-o', 'json');
    // Assess: stdout is pure JSON even with warnings on stderr.
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.unschedulable.map((u) => u.pod)).toEqual(['default/pinned']);
    expect(claimWith(plan, 'default/free')).toBeDefined();
    expect(r.stderr).toContain('warning: nodepool "default": EC2NodeClass "default" is not in the input');
  });

  // Regression (found by this file, since fixed): with an explicit --instance-types file, --zones did not
  // restrict the offerings, so tiny.custom (offered only in us-east-1b) was planned in us-east-1b.
  it("should build catalog-form --instance-types entries for each pool's EC2NodeClass (its kubelet applies)", async () => {
    // Prepare: one 16-vCPU type; the node class allows 2 pods per node.
    const dir = mkdtempSync(join(tmpdir(), 'nodewright-types-'));
    writeFileSync(join(dir, 'types.json'), JSON.stringify([{ name: 'm9z.4xlarge', vcpu: 16, memoryMiB: 65536, onDemandUsdPerHour: { 'us-east-1': 0.8 } }]));
    const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  kubelet: {maxPods: 2}
`;
    writeFileSync(join(dir, 'class.yaml'), nodeClass);

    // Act
    const r = await run('plan', '-f', fixture('four-pods.yaml'), '-f', join(dir, 'class.yaml'), '--instance-types', join(dir, 'types.json'), '-o', 'json');
    rmSync(dir, { recursive: true, force: true });

    // Assess: four pods on nodes of two pods each.
    expect(r.code).toBe(0);
    expect(json(r).nodeClaims.map((c) => c.pods.length)).toEqual([2, 2]);
  });

  it('should not plan outside --zones with an explicit --instance-types file', async () => {
    // Act
    const r = await run(
      'plan',
      '-f',
      fixture('four-pods.yaml'),
      '--instance-types',
      fixture('custom-types.json'),
      '--zones',
      'us-east-1a,us-east-1c',
      '-o',
      'json',
    );
    // Assess
    expect(json(r).nodeClaims.map((c) => c.instanceTypes)).toEqual([['big.custom']]);
  });

  // Regression (fixed; was a bug in cli/plan.ts runPlan passes planToJson only the registered nodes — `.filter((n) => !n.inFlight)` — and
  // planToJson lists only those names): pods the plan places on an in-flight NodeClaim vanish from the JSON.
  // Input: the seed walkthrough plus inflight-claim.yaml (NodeClaim default-abc12 for a c6a.2xlarge, no Node
  // yet; Node ip-10-0-1-1 with 100m free). Expected: the five inflate pods listed under existingNodes (as
  // default-abc12), so that every pod counted in summary.scheduled appears somewhere. Actual: nodeClaims [],
  // existingNodes [{ name: ip-10-0-1-1, pods: [] }], unschedulable [], yet summary.scheduled is 5.
  it('should list the pods it places on an in-flight NodeClaim', async () => {
    // Act
    const r = await run('plan', '-f', SEED, '-f', fixture('inflight-claim.yaml'), '-o', 'json');
    // Assess
    const plan = json(r);
    const listed = [...plan.nodeClaims.flatMap((c) => c.pods), ...plan.existingNodes.flatMap((n) => n.pods)];
    expect(listed).toHaveLength(plan.summary.scheduled);
    expect(plan.existingNodes.find((n) => n.name === 'default-abc12')?.pods).toHaveLength(5);
  });

  it('should count a DaemonSet pod running on a node against that node (at its own size), and not provision for it', async () => {
    // Act: web (1 CPU) does not fit beside the agent's 1.5 CPU on the 2-CPU node
    const r = await run('plan', '-f', SEED, '-f', fixture('node-with-daemon-pod.yaml'), '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.existingNodes.find((n) => n.name === 'ip-10-0-2-2')?.pods).toEqual([]);
    expect(plan.nodeClaims.flatMap((c) => c.pods)).toContain('default/web');
    expect(plan.nodeClaims.flatMap((c) => c.pods)).not.toContain('kube-system/agent-x7k2p');
  });

  it('should price the running fleet as it prices its claims, and say what the plan adds to it', async () => {
    // Prepare: two running nodes of the seed's pool (one of a type no pool offers), full, and the seed's pending pods
    const dir = mkdtempSync(join(tmpdir(), 'nodewright-fleet-'));
    const node = (name: string, type: string) => `apiVersion: v1
kind: Node
metadata:
  name: ${name}
  labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: us-east-1a, node.kubernetes.io/instance-type: ${type}, karpenter.sh/capacity-type: on-demand, karpenter.sh/nodepool: default, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
status:
  allocatable: {cpu: "0", memory: 0, pods: "0"}
  capacity: {cpu: "2", memory: 8Gi, pods: "20"}
  conditions: [{type: Ready, status: "True"}]`;
    const file = join(dir, 'nodes.yaml');
    writeFileSync(file, [node('ip-10-0-0-1', 'm5.large'), node('ip-10-0-0-2', 'x9.unknown')].join('\n---\n'));
    try {
      // Act
      const r = await run('plan', '-f', SEED, '-f', file, '-o', 'json');
      const table = await run('plan', '-f', SEED, '-f', file);
      // Assess: m5.large on-demand in us-east-1 at the bundled list price
      expect(r.code).toBe(0);
      const plan = json(r) as PlanJson;
      expect(plan.fleet).toEqual({ nodes: 2, pricePerHour: 0.096, unpriced: 1 });
      expect(table.stdout).toMatch(
        /^Running fleet: 2 node\(s\) at \$0\.0960\/h; 1 not priced \(a type no NodePool offers\); with the new nodes \$[\d.]+\/h \(\+[\d.]+ %\)\.$/m,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('should plan a v1alpha5 Provisioner file', async () => {
    // Act
    const r = await run('plan', '-f', fixture('provisioner-v1alpha5.yaml'), '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.nodeClaims.map((c) => [c.nodePool, c.capacityType, c.pods.length])).toEqual([['legacy', 'on-demand', 3]]);
    expect(plan.nodeClaims[0].requirements).toContainEqual({ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] });
  });

  it('should read several -f files as one input', async () => {
    // Act: the four pods of four-pods.yaml beside the five of the seed walkthrough.
    const r = await run('plan', '-f', SEED, '-f', fixture('four-pods.yaml'), '-o', 'json');
    // Assess
    expect(r.code).toBe(0);
    expect(json(r).summary.pods).toBe(9);
  });

  it('should exit 2 on an unknown flag, a bad output format, a missing file or a missing -f', async () => {
    // Act
    const unknown = await run('plan', '-f', SEED, '--bogus');
    const format = await run('plan', '-f', SEED, '-o', 'yaml');
    const missing = await run('plan', '-f', fixture('does-not-exist.yaml'));
    const noFile = await run('plan');
    // Assess
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect(format.code).toBe(2);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*does-not-exist\.yaml/);
    expect(noFile.code).toBe(2);
    for (const r of [unknown, format, missing, noFile]) expect(r.stdout).not.toContain('nodeClaims');
  });

  it('should exit 2 on an instance-types file that is not valid', async () => {
    // Act
    const r = await run('plan', '-f', SEED, '--instance-types', fixture('invalid-nodepool.yaml'));
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: cannot read instance types from .*invalid-nodepool\.yaml/);
    expect(r.stdout).toBe('');
  });
});

describe('nodewright demo', () => {
  it('should simulate the seed walkthrough scenario (the end-to-end run itself is tested in test/sim)', async () => {
    // Prepare
    const simulate = await import('../../cli/simulate');
    const spy = vi.spyOn(simulate, 'simulateFile').mockResolvedValue(0);
    const { demoCommand, WALKTHROUGH } = await import('../../cli/demo');
    // Act
    const code = await demoCommand(
      () => {},
      () => {},
    );
    // Assess
    expect(code).toBe(0);
    expect(WALKTHROUGH).toMatch(/examples\/scenarios\/walkthrough\.yaml$/);
    expect(spy).toHaveBeenCalledWith(WALKTHROUGH, { output: 'table' }, expect.any(Function), expect.any(Function));
    spy.mockRestore();
  });
});

describe('nodewright plan as a child process', () => {
  it('should print the JSON plan for the seed walkthrough and exit 0', () => {
    // Act
    const r = spawnSync(process.execPath, ['bin/nodewright.mjs', 'plan', '-f', 'examples/inflate.yaml', '-o', 'json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    // Assess
    expect(r.status).toBe(0);
    const plan = JSON.parse(r.stdout) as PlanJson;
    expect(plan.nodeClaims.map((c) => [c.instanceTypes[0], c.capacityType, c.pricePerHour])).toEqual([['c6a.2xlarge', 'on-demand', 0.306]]);
    expect(plan.summary).toMatchObject({ pods: 5, scheduled: 5, nodeClaims: 1, pricePerHour: 0.306 });
  });

  it('should print the same plan from the prebuilt CLI as from the sources, and its version', () => {
    // Act
    const cli = (env: Record<string, string>, ...args: string[]) =>
      spawnSync(process.execPath, ['bin/nodewright.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
    const args = ['plan', '-f', 'examples/static-pool.yaml', '-f', 'test/fixtures/manifests/four-pods.yaml', '-o', 'json'];
    const prebuilt = cli({}, ...args);
    const sources = cli({ NODEWRIGHT_FROM_SOURCES: '1' }, ...args);
    const version = cli({}, '--version');
    // Assess
    expect(prebuilt.status).toBe(0);
    expect(prebuilt.stdout).toBe(sources.stdout);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version);
  });
});

describe('the prebuilt CLI (dist/cli, as `npm ci` leaves it)', () => {
  /** Runs dist/cli/main.js itself (not the bin, which would fall back to the sources when the build is stale). */
  const prebuilt = (...args: string[]) => {
    const built = JSON.parse(readFileSync(`${ROOT}dist/cli/inputs.json`, 'utf8')) as { builtAt: number; inputs: string[] };
    const stale = built.inputs.filter((f) => statSync(`${ROOT}${f}`).mtimeMs > built.builtAt);
    if (stale.length) throw new Error(`dist/cli is older than ${stale.slice(0, 3).join(', ')}: run npm run build`);
    const env: Record<string, string | undefined> = {
      ...process.env,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: '/nonexistent',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
    };
    for (const k of [
      'AWS_PROFILE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'NODEWRIGHT_DEBUG',
    ])
      delete env[k];
    const script = 'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));';
    return spawnSync(process.execPath, ['--input-type=module', '-e', script, `${ROOT}dist/cli/main.js`, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env,
    });
  };

  it('should run every prebuilt command without credentials or a cluster, with one clear line and never a stack trace', () => {
    // Act
    const runs = {
      help: prebuilt('--help'),
      plan: prebuilt('plan', '-f', 'examples/inflate.yaml'),
      explain: prebuilt('explain', '-f', 'examples/inflate.yaml'),
      doctor: prebuilt('doctor', '--cluster', 'demo', '--region', 'us-east-1'),
      doctorUsage: prebuilt('doctor'),
      audit: prebuilt('audit', '--table', 'nodewright-dev-state', '--region', 'us-east-1'),
      snapshot: prebuilt('snapshot', '--kubeconfig', '/nonexistent/kubeconfig'),
    };

    // Assess
    for (const [name, r] of Object.entries(runs)) {
      expect(r.stderr, name).not.toMatch(/\n\s+at |ERR_MODULE_NOT_FOUND/);
      expect(r.stdout, name).not.toMatch(/\n\s+at /);
    }
    expect([runs.help.status, runs.plan.status, runs.explain.status]).toEqual([0, 0, 0]);
    expect(runs.doctor.status).toBe(1);
    expect(runs.doctor.stdout).toMatch(/^FAIL\s+cluster\s+DescribeCluster demo in us-east-1: CredentialsProviderError/m);
    expect(runs.snapshot.status).toBe(2);
    expect(runs.snapshot.stderr).toMatch(/^error: cannot read kubeconfig \/nonexistent\/kubeconfig: /);
    expect(runs.doctorUsage.status).toBe(2);
    expect(runs.doctorUsage.stderr).toMatch(/--cluster and --region are required/);
    expect(runs.audit.status).toBe(1);
    expect(
      runs.audit.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toEqual([expect.stringMatching(/^error: CredentialsProviderError: .*set AWS credentials/)]);
  });
});

describe('nodewright plan with a static NodePool', () => {
  it('lists the static nodes to launch and places pending pods on them before launching dynamic capacity', async () => {
    // Act
    const r = await run('plan', '-f', `${ROOT}examples/static-pool.yaml`, '-o', 'json');
    const table = await run('plan', '-f', `${ROOT}examples/static-pool.yaml`);
    // Assess
    expect(r.code).toBe(0);
    const plan = json(r);
    expect(plan.staticNodePools).toEqual([
      { nodePool: 'static', replicas: 2, existing: 0, launch: 2, remove: 0, instanceTypes: ['m5.large'], capacityType: 'on-demand', pricePerHour: 0.096 },
    ]);
    expect(plan.existingNodes.map((n) => [n.name, n.pods.length])).toEqual([
      ['static-replica-1', 1],
      ['static-replica-2', 1],
    ]);
    expect(plan.nodeClaims.map((c) => [c.nodePool, c.pods.length])).toEqual([['default', 1]]);
    expect(table.stdout).toMatch(/Static NodePools: 2 node\(s\) to launch at \$0\.1920\/h/);
  });
});
