/**
 * The deploy parameters resolved by JS (infra/vpc.cjs, infra/concurrency.cjs): what the template gets for each
 * setting, and a clear error for a wrong one. (Packaging with them was checked by hand: every function gets
 * VpcConfig, every function role AWSLambdaVPCAccessExecutionRole under the FunctionsInVpc condition.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const load = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');
type Resolver = (ctx: { resolveVariable: (v: string) => Promise<unknown> }) => Promise<unknown>;
const vpc = load('../../infra/vpc.cjs') as Resolver;
const concurrency = load('../../infra/concurrency.cjs') as Resolver;
const memory = load('../../infra/memory.cjs') as Resolver;
const accessEntries = load('../../infra/access-entries.cjs') as Resolver;
const partition = load('../../infra/partition.cjs') as Resolver;
const dashboard = load('../../infra/dashboard.cjs') as Resolver;
const params = (p: Record<string, string>) => ({ resolveVariable: async (v: string) => p[v.replace(/^(param|sls):/, '')] ?? '' });

describe('deploy parameters', () => {
  it('should put the functions in a VPC only when both subnet and security group ids are given', async () => {
    await expect(vpc(params({}))).resolves.toBeNull();
    await expect(vpc(params({ subnetIds: 'subnet-0123456789abcdef0, subnet-0123456789abcdef1', securityGroupIds: 'sg-0123456789abcdef0' }))).resolves.toEqual({
      subnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
      securityGroupIds: ['sg-0123456789abcdef0'],
    });
    await expect(vpc(params({ subnetIds: 'subnet-0123456789abcdef0' }))).rejects.toThrow(/go together/);
    await expect(vpc(params({ subnetIds: 'subnet-x', securityGroupIds: 'sg-0123456789abcdef0' }))).rejects.toThrow(
      /not a subnet or security group id: subnet-x/,
    );
  });

  it('should reserve concurrency by default and none with reserveConcurrency=false (accounts whose quota is 10)', async () => {
    await expect(concurrency(params({ reserveConcurrency: 'true' }))).resolves.toEqual({ controller: 2, provisioner: 1, disruption: 1, garbageCollection: 1 });
    await expect(concurrency(params({ reserveConcurrency: 'false' }))).resolves.toEqual({});
    await expect(concurrency(params({ reserveConcurrency: 'maybe' }))).rejects.toThrow(/must be true or false/);
  });

  it("should give every function's role an EKS access entry in the group rbac.yaml binds, and none with accessEntries=false", async () => {
    const out = (await accessEntries(params({ accessEntries: 'true', clusterName: 'prod' }))) as {
      Resources: Record<string, { Type: string; Properties: { ClusterName: string; PrincipalArn: unknown; KubernetesGroups: string[] } }>;
    };
    const roles = new Set(
      readdirSync(resolve(ROOT, 'infra/functions')).flatMap((f) =>
        Object.values(parse(readFileSync(resolve(ROOT, 'infra/functions', f), 'utf8')) as Record<string, { role: string }>).map((fn) => fn.role),
      ),
    );
    expect(Object.keys(out.Resources).sort()).toEqual([...roles].sort().map((r) => `${r}AccessEntry`));
    expect(out.Resources.ControllerRoleAccessEntry).toEqual({
      Type: 'AWS::EKS::AccessEntry',
      Properties: { ClusterName: 'prod', PrincipalArn: { 'Fn::GetAtt': ['ControllerRole', 'Arn'] }, Type: 'STANDARD', KubernetesGroups: ['nodewright'] },
    });
    const rbac = readFileSync(resolve(ROOT, 'infra/kubernetes/rbac.yaml'), 'utf8');
    expect(rbac).toMatch(/kind: Group, name: nodewright/);
    await expect(accessEntries(params({ accessEntries: 'false' }))).resolves.toEqual({});
    await expect(accessEntries(params({ accessEntries: 'yes' }))).rejects.toThrow(/accessEntries=…" must be true or false, got "yes"/);
  });

  it("should name the region's partition in the state machines' Task ARNs (AWS China, GovCloud), and refuse what is not a region", async () => {
    const invoke = async (region: string) => ((await partition(params({ region }))) as { lambdaInvoke: string }).lambdaInvoke;
    expect(await Promise.all(['eu-west-1', 'cn-northwest-1', 'us-gov-west-1'].map(invoke))).toEqual([
      'arn:aws:states:::lambda:invoke',
      'arn:aws-cn:states:::lambda:invoke',
      'arn:aws-us-gov:states:::lambda:invoke',
    ]);
    await expect(invoke('Ireland')).rejects.toThrow(/region=…" must be an AWS region such as eu-west-1, got "Ireland"/);
  });

  it("should build the dashboard from the stack's own names (state machines, functions, queue), with no dashboard when dashboard=false", async () => {
    // Act
    const out = (await dashboard(params({ dashboard: 'true', stage: 'prod', interruptionQueueName: 'nodewright-prod-cluster' }))) as {
      Resources: { Dashboard: { Type: string; Properties: { DashboardName: string; DashboardBody: { 'Fn::Join': [string, unknown[]] } } } };
    };
    // Assess: the body is JSON once the stack's region, account and partition are joined in
    const { Type, Properties } = out.Resources.Dashboard;
    expect([Type, Properties.DashboardName]).toEqual(['AWS::CloudWatch::Dashboard', 'nodewright-prod']);
    const joined = Properties.DashboardBody['Fn::Join'][1]
      .map((p) =>
        typeof p === 'string'
          ? p
          : ({ 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '111122223333', 'AWS::Partition': 'aws' } as Record<string, string>)[(p as { Ref: string }).Ref],
      )
      .join('');
    const body = JSON.parse(joined) as { widgets: { properties: { title: string; region: string; metrics: string[][] } }[] };
    expect(body.widgets.map((w) => w.properties.title)).toEqual([
      'Launches (launch executions)',
      'Terminations (terminate executions)',
      'Disruptions (disrupt executions)',
      'Function errors',
      'Function throttles',
      'Longest run (ms)',
      'Interruption queue',
    ]);
    expect(body.widgets[0].properties.metrics[2]).toEqual([
      'AWS/States',
      'ExecutionsFailed',
      'StateMachineArn',
      'arn:aws:states:eu-west-1:111122223333:stateMachine:nodewright-prod-launch',
    ]);
    expect(body.widgets[3].properties.metrics[0]).toEqual(['AWS/Lambda', 'Errors', 'FunctionName', 'nodewright-prod-controller']);
    expect(body.widgets[6].properties.metrics.map((m) => m[3])).toEqual(['nodewright-prod-cluster', 'nodewright-prod-cluster', 'nodewright-prod-cluster-dlq']);
    expect(body.widgets.every((w) => w.properties.region === 'eu-west-1')).toBe(true);
    await expect(dashboard(params({ dashboard: 'false' }))).resolves.toEqual({});
  });

  it('should size the controller from controllerMemorySize (a --param string), naming the parameter when it is not a size', async () => {
    await expect(memory(params({ controllerMemorySize: '160' }))).resolves.toEqual({ controller: 160 });
    await expect(memory(params({ controllerMemorySize: ' 256 ' }))).resolves.toEqual({ controller: 256 });
    await expect(memory(params({ controllerMemorySize: '256MB' }))).rejects.toThrow(
      /controllerMemorySize=…" must be a whole number of MB from 128 to 10240, got "256MB"/,
    );
    await expect(memory(params({ controllerMemorySize: '64' }))).rejects.toThrow(/from 128 to 10240/);
  });
});
