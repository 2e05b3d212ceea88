/** `nodewright doctor`: each check's failure, named with what to do, and the simulated account passing. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DescribeClusterCommand, EKSClient, ListAccessEntriesCommand } from '@aws-sdk/client-eks';
import { DescribeImagesCommand, DescribeSecurityGroupsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from './run';
import { checkNodeAccessEntry } from '../../shared/adapters/doctor/node-access';
import { checkKarpenterController } from '../../shared/adapters/doctor/karpenter-controller';
import { kubeConfigForServer } from '../../shared/adapters/kubernetes/config';
import { parseScenario, worldForScenario } from '../../shared/sim';
import {
  checkAccessEntries,
  checkCluster,
  checkConcurrency,
  checkDiscovery,
  checkKarpenterQueue,
  checkNodeClassRoles,
  checkKubernetes,
  checkNodeRole,
  checkPrices,
  checkQueue,
  type DoctorTarget,
} from '../../shared/adapters/doctor/checks';
import type { ClusterSnapshot } from '../../shared/core/ports';

const T: DoctorTarget = { clusterName: 'prod', region: 'eu-west-1', stage: 'prod', nodeRoleName: 'KarpenterNodeRole-prod', queueName: 'prod' };
const err = (name: string, message = name) => Object.assign(new Error(message), { name, $metadata: {} });
const mocks: { restore(): void }[] = [];
afterEach(() => {
  while (mocks.length) mocks.pop()!.restore();
  vi.restoreAllMocks();
});
function track<M extends { restore(): void }>(m: M): M {
  mocks.push(m);
  return m;
}

describe('nodewright doctor checks', () => {
  it("should fail a node class whose role the functions may not pass, and warn while Karpenter's queue is still there", async () => {
    // Prepare
    const snapshot = {
      nodeClasses: [
        { name: 'default', role: 'KarpenterNodeRole-prod' },
        { name: 'gpu', role: 'arn:aws:iam::111122223333:role/GpuNodes' },
      ],
    } as unknown as ClusterSnapshot;
    const sqs = track(mockClient(SQSClient));
    sqs.on(GetQueueUrlCommand, { QueueName: 'prod' }).resolves({ QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/111122223333/prod' });
    // Act
    const roles = checkNodeClassRoles(snapshot, T);
    const karpenter = await checkKarpenterQueue(new SQSClient({}), { ...T, queueName: 'nodewright-prod' });
    // Assess
    expect(roles.map((r) => [r.check, r.status])).toEqual([
      ['node-class-role default', 'PASS'],
      ['node-class-role gpu', 'FAIL'],
    ]);
    expect(roles[1].fix).toBe('set spec.role to KarpenterNodeRole-prod, or deploy with --param="nodeRoleName=GpuNodes" (the functions may pass one role)');
    expect(karpenter).toMatchObject({ status: 'WARN', detail: expect.stringContaining('Karpenter may still be running') });
  });

  it('should fail an account whose Lambda concurrency cannot spare the reservation before the first deploy, and pass once deployed', async () => {
    // Prepare: a new account (limit 10, all unreserved), nothing deployed yet
    const lambda = track(mockClient(LambdaClient));
    lambda.on(GetFunctionConcurrencyCommand).rejects(err('ResourceNotFoundException'));
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    // Act
    const small = await checkConcurrency(new LambdaClient({}), T, 5);
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } });
    const usual = await checkConcurrency(new LambdaClient({}), T, 5);
    lambda.on(GetFunctionConcurrencyCommand).resolves({});
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const deployedWithout = await checkConcurrency(new LambdaClient({}), T, 5);
    // Assess
    expect(small).toMatchObject({
      status: 'FAIL',
      detail:
        'account limit 10, 10 unreserved: reserving 5 for nodewright would leave 5, below the 10 Lambda keeps unreserved (the stack would fail to create)',
      fix: expect.stringContaining('--param="reserveConcurrency=false"'),
    });
    expect(usual).toMatchObject({ status: 'PASS', detail: 'account limit 1000, 1000 unreserved: room to reserve 5' });
    expect(deployedWithout).toMatchObject({ status: 'PASS', detail: expect.stringContaining('deployed without reserved concurrency') });
    expect(lambda.commandCalls(GetFunctionConcurrencyCommand)[0].args[0].input).toEqual({ FunctionName: 'nodewright-prod-controller' });
  });

  it('should fail a missing cluster and warn when it has no access entries mode', async () => {
    const eks = track(mockClient(EKSClient));
    eks
      .on(DescribeClusterCommand)
      .rejectsOnce(err('ResourceNotFoundException', 'No cluster found for name: prod.'))
      .resolves({ cluster: { status: 'ACTIVE', version: '1.31', accessConfig: { authenticationMode: 'CONFIG_MAP' } } });
    expect(await checkCluster(new EKSClient({}), T)).toMatchObject({
      status: 'FAIL',
      detail: expect.stringContaining('No cluster found'),
      fix: expect.stringContaining('--cluster'),
    });
    expect(await checkCluster(new EKSClient({}), T)).toMatchObject({ status: 'WARN', fix: expect.stringContaining('aws-auth') });
  });

  it('should fail a node role without an access entry on an API-only cluster (its nodes could not join), and only warn when aws-auth may map it', async () => {
    // Prepare
    const eks = track(mockClient(EKSClient));
    eks.on(ListAccessEntriesCommand).resolves({ accessEntries: ['arn:aws:iam::111122223333:role/nodewright-prod-ControllerRole-ABC'] });
    // Act
    const api = await checkNodeAccessEntry(new EKSClient({}), T, 'API');
    const both = await checkNodeAccessEntry(new EKSClient({}), T, 'API_AND_CONFIG_MAP');
    eks.on(ListAccessEntriesCommand).resolves({ accessEntries: ['arn:aws:iam::111122223333:role/KarpenterNodeRole-prod'] });
    const present = await checkNodeAccessEntry(new EKSClient({}), T, 'API');
    // Assess
    expect(api).toMatchObject({ status: 'FAIL', detail: 'no access entry for the node role KarpenterNodeRole-prod: its nodes cannot join' });
    expect(api.fix).toContain('--type EC2_LINUX');
    expect(both.status).toBe('WARN');
    expect(present.status).toBe('PASS');
  });

  it("should warn while Karpenter's controller renews its leader lease, and pass once it has stopped or is gone", async () => {
    // Prepare: the simulator's API server, with the lease as Karpenter's controller keeps it in kube-system.
    const scenario = parseScenario('name: lease\n', 'lease.yaml');
    const world = await worldForScenario(scenario);
    try {
      const store = world.api.store;
      const leases = store.typeOf('coordination.k8s.io/v1', 'Lease');
      const kc = async () => kubeConfigForServer({ server: world.server.url, token: 'admin', ...(world.server.caData ? { caData: world.server.caData } : {}) });
      const now = Date.parse('2026-11-29T10:00:00Z');
      const lease = (renewTime: string) => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'karpenter-leader-election', namespace: 'kube-system' },
        spec: { holderIdentity: 'karpenter-5f7d9c-abcde', renewTime },
      });
      // Act
      const gone = await checkKarpenterController(kc, now);
      store.create(leases, 'kube-system', lease('2026-11-29T09:59:58.000000Z'));
      const running = await checkKarpenterController(kc, now);
      const stopped = await checkKarpenterController(kc, now + 1800_000);
      // Assess
      expect(gone.status).toBe('PASS');
      expect(running).toMatchObject({
        status: 'WARN',
        detail: expect.stringContaining('renewed its leader lease 2s ago (karpenter-5f7d9c-abcde, namespace kube-system)'),
      });
      expect(running.fix).toContain('kubectl scale deployment karpenter -n kube-system --replicas 0');
      expect(stopped).toMatchObject({ status: 'PASS', detail: expect.stringContaining('last renewed 1802s ago') });
    } finally {
      await world.close();
    }
  }, 60_000);

  it('should fail when no function role has an access entry', async () => {
    track(mockClient(EKSClient))
      .on(ListAccessEntriesCommand)
      .resolves({ accessEntries: ['arn:aws:iam::1:role/other'] });
    expect(await checkAccessEntries(new EKSClient({}), T, 24)).toMatchObject({ status: 'FAIL', fix: expect.stringContaining('step 5') });
  });

  it('should fail an API answer of 403 naming the ClusterRole to apply', async () => {
    const forbidden = Object.assign(new Error('HTTP-Code: 403'), { code: 403 });
    const r = await checkKubernetes(
      async () =>
        ({
          snapshot: async () => {
            throw forbidden;
          },
        }) as never,
    );
    expect(r.result).toMatchObject({ status: 'FAIL', fix: expect.stringContaining('infra/kubernetes/rbac.yaml') });
  });

  it('should fail a node class whose subnets match nothing, naming it', async () => {
    const ec2 = track(mockClient(EC2Client));
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
    ec2.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [{ GroupId: 'sg-1', GroupName: 'nodes' }] });
    track(mockClient(SSMClient))
      .on(GetParameterCommand)
      .resolves({ Parameter: { Value: 'ami-123' } });
    ec2
      .on(DescribeImagesCommand)
      .resolves({ Images: [{ ImageId: 'ami-123', Architecture: 'x86_64', CreationDate: '2026-01-01T00:00:00Z', State: 'available' }] });
    const nc = {
      name: 'default',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
    };
    const [r] = await checkDiscovery({ ec2: new EC2Client({}), ssm: new SSMClient({}) }, '1.31', { nodeClasses: [nc] } as unknown as ClusterSnapshot);
    expect(r).toMatchObject({
      check: 'discovery default',
      status: 'FAIL',
      detail: expect.stringContaining('subnetSelectorTerms'),
      fix: expect.stringContaining('tag the subnets'),
    });
  });

  it('should fail a missing node role, warn on unreadable prices, and fail a queue EventBridge cannot send to', async () => {
    track(mockClient(IAMClient)).on(GetRoleCommand).rejects(err('NoSuchEntityException', 'The role with name KarpenterNodeRole-prod cannot be found.'));
    track(mockClient(PricingClient)).on(GetProductsCommand).rejects(err('AccessDeniedException'));
    const sqs = track(mockClient(SQSClient));
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs/prod' });
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { Policy: '{"Statement":[]}' } });
    expect(await checkNodeRole(new IAMClient({}), T)).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('cannot be found') });
    expect(await checkPrices(new PricingClient({}), T)).toMatchObject({ status: 'WARN', fix: expect.stringContaining('estimates') });
    expect(await checkQueue(new SQSClient({}), T)).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('EventBridge') });
  });
});

describe('nodewright doctor command', () => {
  const run = runCli;

  it('should pass every check on the simulated account and cluster', async () => {
    const r = await run('doctor', '--sim', '-o', 'json');
    const out = JSON.parse(r.stdout) as { ok: boolean; results: { check: string; status: string }[] };
    expect(r.code).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.results.map((x) => x.check)).toEqual([
      'cluster',
      'access-entries',
      'node-access-entry',
      'kubernetes-api',
      'discovery default',
      'node-role',
      'node-class-role default',
      'prices',
      'interruption-queue',
      'karpenter-queue',
      'karpenter-controller',
      'lambda-concurrency',
    ]);
    expect(out.results.every((x) => x.status === 'PASS')).toBe(true);
  }, 60_000);

  it('should run the same checks from inside the stack: its doctor function, with a function role, on the simulated account', async () => {
    const r = await run('doctor', '--sim', '--in-stack', '-o', 'json');
    const out = JSON.parse(r.stdout) as { ok: boolean; results: { check: string; status: string; detail: string }[] };
    expect(r.code).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.results.find((x) => x.check === 'kubernetes-api')).toMatchObject({ status: 'PASS', detail: expect.stringContaining('reached the API server') });
    expect(out.results.every((x) => x.status === 'PASS')).toBe(true);
  }, 60_000);

  it('should refuse to run without a cluster and region (exit 2)', async () => {
    const r = await run('doctor');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--cluster and --region are required');
  });
});
