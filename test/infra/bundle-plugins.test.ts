/**
 * The function bundles' esbuild plugins (infra/bundle/plugins.cjs) must only let tree shaking drop what is
 * unused: a script sending real AWS SDK commands (EC2's query/XML protocol, SSM's and DynamoDB's JSON, an EC2
 * error) through a recording HTTP handler is bundled with and without them, and both bundles must write the same
 * requests and read the same results — while the EC2 client shrinks to the commands the script sends.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const plugins = createRequire(import.meta.url)(join(ROOT, 'infra/bundle/plugins.cjs')) as Plugin[];
const dir = mkdtempSync(join(os.tmpdir(), 'nodewright-bundle-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EC2_NS = 'xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"';
const DESCRIBE_INSTANCES = `<DescribeInstancesResponse ${EC2_NS}><requestId>r1</requestId><reservationSet><item><reservationId>r-1</reservationId>
<instancesSet><item><instanceId>i-0abc</instanceId><instanceType>m5.large</instanceType><launchTime>2026-01-01T00:00:07.000Z</launchTime>
<placement><availabilityZone>eu-west-1a</availabilityZone></placement><instanceState><code>16</code><name>running</name></instanceState>
<tagSet><item><key>karpenter.sh/nodepool</key><value>default</value></item></tagSet><instanceLifecycle>spot</instanceLifecycle>
<privateDnsName>ip-10-0-0-1.eu-west-1.compute.internal</privateDnsName></item></instancesSet></item></reservationSet></DescribeInstancesResponse>`;
const CREATE_FLEET = `<CreateFleetResponse ${EC2_NS}><requestId>r2</requestId><fleetId>fleet-1</fleetId>
<errorSet><item><errorCode>InsufficientInstanceCapacity</errorCode><errorMessage>no capacity</errorMessage><lifecycle>spot</lifecycle>
<launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateName>lt</launchTemplateName><version>$Latest</version></launchTemplateSpecification>
<overrides><instanceType>m5.large</instanceType><availabilityZone>eu-west-1b</availabilityZone></overrides></launchTemplateAndOverrides></item></errorSet>
<fleetInstanceSet><item><instanceIds><item>i-0def</item></instanceIds><instanceType>c5.large</instanceType><lifecycle>spot</lifecycle>
<launchTemplateAndOverrides><overrides><instanceType>c5.large</instanceType><subnetId>subnet-1</subnetId></overrides></launchTemplateAndOverrides></item></fleetInstanceSet></CreateFleetResponse>`;
const EC2_ERROR = `<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-0zzz' does not exist</Message></Error></Errors><RequestID>r3</RequestID></Response>`;

const SCRIPT = `
import { CreateFleetCommand, DescribeInstancesCommand, EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { Readable } from 'node:stream';
(async () => {
const requests = [];
const answer = (status, type, body) => ({
  handle: async (req) => {
    requests.push({ method: req.method, path: req.path, target: req.headers['x-amz-target'], type: req.headers['content-type'], body: typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString() });
    return { response: { statusCode: status, headers: { 'content-type': type }, body: Readable.from([Buffer.from(body)]) } };
  },
});
const options = (handler) => ({ region: 'eu-west-1', maxAttempts: 1, credentials: { accessKeyId: 'AKID', secretAccessKey: 'SECRET' }, requestHandler: handler });
const strip = ({ $metadata, ...rest }) => rest;
const results = [];
const ec2 = (status, body) => new EC2Client(options(answer(status, 'text/xml', body)));
results.push(strip(await ec2(200, ${JSON.stringify(DESCRIBE_INSTANCES)}).send(new DescribeInstancesCommand({
  Filters: [{ Name: 'tag:karpenter.sh/nodepool', Values: ['default'] }, { Name: 'instance-state-name', Values: ['pending', 'running'] }], MaxResults: 500 }))));
results.push(strip(await ec2(200, ${JSON.stringify(CREATE_FLEET)}).send(new CreateFleetCommand({
  Type: 'instant', ClientToken: 'default-abc', TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'spot' },
  SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
  LaunchTemplateConfigs: [{ LaunchTemplateSpecification: { LaunchTemplateName: 'lt', Version: '$Latest' },
    Overrides: [{ InstanceType: 'c5.large', SubnetId: 'subnet-1', ImageId: 'ami-1', Priority: 0 }, { InstanceType: 'm5.large', SubnetId: 'subnet-2', ImageId: 'ami-1', Priority: 1 }] }],
  TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'karpenter.sh/nodeclaim', Value: 'default-abc' }] }] }))));
try {
  await ec2(400, ${JSON.stringify(EC2_ERROR)}).send(new TerminateInstancesCommand({ InstanceIds: ['i-0zzz'] }));
  results.push('no error');
} catch (e) { results.push({ name: e.name, message: e.message, fault: e.$fault }); }
results.push(strip(await new SSMClient(options(answer(200, 'application/x-amz-json-1.1',
  JSON.stringify({ Parameter: { Name: '/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id', Value: 'ami-123', Version: 3, LastModifiedDate: 1767225607.5 } }))))
  .send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id' }))));
results.push(strip(await new DynamoDBClient(options(answer(200, 'application/x-amz-json-1.0', JSON.stringify({ Items: [{ pk: { S: 'claim#a' }, n: { N: '1' } }], Count: 1 }))))
  .send(new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'claim#a' } } }))));
console.log(JSON.stringify({ requests, results }));
})();
`;

/** Our Kubernetes adapter (client-node's KubeConfig and HTTP client) asking a server given on the command line. */
const KUBE_SCRIPT = `
import { kubeConfigForServer } from './shared/adapters/kubernetes/config';
import { makeApis } from './shared/adapters/kubernetes/apis';
(async () => {
  const apis = makeApis(kubeConfigForServer({ server: process.argv[2], token: 'secret-token' }), { attempts: 1 });
  const nodes = await apis.core.listNode({ limit: 2 });
  const patched = await apis.core.patchNode({ name: 'node-a', body: { metadata: { labels: { a: 'b' } } } });
  console.log(JSON.stringify({ nodes, patched }));
  process.exit(0); // the keep-alive agent would hold the process open
})();
`;

/** The deployed planner's LP loader, as a function bundle runs it: one tiny LP, and what it warned. */
const LP_SCRIPT = `
import { containerLp } from './shared/adapters/compose/parts/planner';
(async () => {
  const warnings: string[] = [];
  const lp = await containerLp({ warn: (m: string) => warnings.push(m) })();
  const r = lp?.solve({ objective: [1, 2], rows: [{ terms: [[0, 1], [1, 1]], lo: 1, hi: Infinity }] }, { timeLimitSeconds: 1 });
  console.log(JSON.stringify({ status: r?.status, warnings }));
})();
`;

async function bundle(
  name: string,
  withPlugins: boolean,
  script = SCRIPT,
  loader: 'js' | 'ts' = 'js',
): Promise<{ outfile: string; output: string; bytes: (pkg: string) => number }> {
  const outfile = join(dir, `${name}.cjs`);
  const result = await build({
    stdin: { contents: script, resolveDir: ROOT, loader, sourcefile: `script.${loader === 'ts' ? 'ts' : 'mjs'}` },
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    mainFields: ['module', 'main'],
    outfile,
    metafile: true,
    logLevel: 'silent',
    plugins: withPlugins ? plugins : [],
  });
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0].inputs);
  const bytes = (pkg: string) => inputs.filter(([file]) => file.includes(`node_modules/${pkg}/`)).reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  // Run from a directory without node_modules: the bundle needs nothing outside itself.
  const output = script === SCRIPT ? execFileSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) : '';
  return { outfile, output, bytes };
}

describe('the function bundles’ esbuild plugins', () => {
  it('should keep every request and result of the AWS SDK the same, and the EC2 client only what the commands use', async () => {
    // Act
    const [plain, shaken] = await Promise.all([bundle('plain', false), bundle('shaken', true)]);
    // Assess
    const { requests, results } = JSON.parse(shaken.output) as { requests: { body: string; target?: string }[]; results: unknown[] };
    expect(shaken.output).toBe(plain.output);
    expect(requests).toHaveLength(5);
    expect(requests[1].body).toContain('LaunchTemplateConfigs.1.Overrides.2.InstanceType=m5.large');
    expect(requests[1].body).toContain('TagSpecification.1.Tag.1.Key=karpenter.sh%2Fnodeclaim');
    expect(results[0]).toMatchObject({
      Reservations: [{ Instances: [{ InstanceId: 'i-0abc', State: { Name: 'running' }, Tags: [{ Key: 'karpenter.sh/nodepool' }] }] }],
    });
    expect(results[1]).toMatchObject({ Errors: [{ ErrorCode: 'InsufficientInstanceCapacity' }], Instances: [{ InstanceIds: ['i-0def'] }] });
    expect(results[2]).toEqual({ name: 'InvalidInstanceID.NotFound', message: "The instance ID 'i-0zzz' does not exist", fault: 'client' });
    expect(results[3]).toMatchObject({ Parameter: { Value: 'ami-123' } });
    expect(results[4]).toMatchObject({ Count: 1, Items: [{ pk: { S: 'claim#a' } }] });
    expect(shaken.bytes('@aws-sdk/client-ec2')).toBeLessThan(plain.bytes('@aws-sdk/client-ec2') / 4);
  }, 60_000);

  it('should keep the Kubernetes adapter’s requests the same while leaving out client-node’s unused generated models', async () => {
    // Prepare
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers.authorization} ${req.headers['content-type'] ?? ''} ${body}`);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify(
            req.method === 'GET'
              ? { kind: 'NodeList', metadata: { continue: 'c1' }, items: [{ metadata: { name: 'node-a' } }] }
              : { metadata: { name: 'node-a', labels: { a: 'b' } } },
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const [plain, shaken] = await Promise.all([bundle('kube-plain', false, KUBE_SCRIPT, 'ts'), bundle('kube-shaken', true, KUBE_SCRIPT, 'ts')]);
      // Act
      const run = async (file: string) => (await promisify(execFile)(process.execPath, [file, url], { cwd: dir, encoding: 'utf8' })).stdout;
      const outputs = [await run(plain.outfile), await run(shaken.outfile)];
      // Assess
      expect(outputs[1]).toBe(outputs[0]);
      expect(JSON.parse(outputs[1])).toEqual({
        nodes: { kind: 'NodeList', metadata: { continue: 'c1' }, items: [{ metadata: { name: 'node-a' } }] },
        patched: { metadata: { name: 'node-a', labels: { a: 'b' } } },
      });
      expect(seen.slice(2)).toEqual(seen.slice(0, 2));
      expect(seen[0]).toBe('GET /api/v1/nodes?limit=2 Bearer secret-token  ');
      expect(seen[1]).toMatch(/^PATCH \/api\/v1\/nodes\/node-a Bearer secret-token application\/merge-patch\+json/);
      expect(shaken.bytes('@kubernetes/client-node')).toBeLessThan(plain.bytes('@kubernetes/client-node') / 4);
    } finally {
      server.close();
    }
  }, 60_000);

  it('should load HiGHS in a bundle from where serverless.yml packages highs.wasm, and plan without it when it is missing', async () => {
    // Prepare: the planner's LP loader bundled as a function is, highs.wasm where the provisioner's `package.patterns` put it
    const { outfile } = await bundle('lp', true, LP_SCRIPT, 'ts');
    const patterns = (parse(readFileSync(join(ROOT, 'infra/functions/provisioner.yml'), 'utf8')) as { provisioner: { package: { patterns: string[] } } })
      .provisioner.package.patterns;
    const taskRoot = join(dir, 'task');
    for (const p of patterns) {
      mkdirSync(dirname(join(taskRoot, p)), { recursive: true });
      copyFileSync(join(ROOT, p), join(taskRoot, p));
    }
    const run = (root: string) =>
      JSON.parse(execFileSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8', env: { ...process.env, LAMBDA_TASK_ROOT: root } })) as {
        status?: string;
        warnings: string[];
      };
    // Act
    const packaged = run(taskRoot);
    const missing = run(join(dir, 'elsewhere'));
    // Assess
    expect(patterns).toEqual(['node_modules/highs/build/highs.wasm']);
    expect(packaged).toEqual({ status: 'optimal', warnings: [] });
    expect(missing).toEqual({ warnings: ['could not load the LP solver; large groups are packed by the heuristic'] });
  }, 60_000);
});
