/**
 * `npm run package` offline (dummy credentials, scripts/package.sh) and assertions on the CloudFormation
 * template it writes. One packaging run for the whole file.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateTemplate } from './cfn-spec';

const ROOT = resolve(__dirname, '../..');
const CLUSTER = 'unit-test-cluster';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
type Statement = { Sid?: string; Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
let resources: Record<string, Resource>;
let template: { Resources: Record<string, Resource> };

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
/** Inline policy documents are objects, or JSON strings built with Fn::Join (when a condition key holds the cluster name). */
function documentOf(doc: unknown): { Statement: Statement[] } {
  const join = (doc as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return doc as { Statement: Statement[] };
  return JSON.parse(join[1].map((p) => (typeof p === 'string' ? p : `{${Object.values(p as object).join('')}}`)).join(join[0]));
}
const statementsOf = (role: Resource): Statement[] =>
  ((role.Properties.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).flatMap((p) => documentOf(p.PolicyDocument).Statement);

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', 'package', '--', `--param=clusterName=${CLUSTER}`], {
    cwd: ROOT,
    env: { ...process.env, AWS_PROFILE: '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  template = JSON.parse(readFileSync(resolve(ROOT, '.serverless/cloudformation-template-update-stack.json'), 'utf8'));
  resources = template.Resources;
}, 600_000);

describe('the packaged CloudFormation template', () => {
  it('should pass the AWS service spec: known resource types and properties, required properties set, values of the right type', async () => {
    // Act
    const violations = await validateTemplate(template);
    // Assess
    expect(violations.map((v) => `${v.resource}.${v.path}: ${v.problem}`)).toEqual([]);
  });

  it('should be checked for real by that validation (a mutated copy fails, naming resource, path and rule)', async () => {
    // Prepare
    const mutated = structuredClone(template);
    const fn = Object.entries(mutated.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Function')!;
    fn[1].Properties.Timeout = 'thirty';
    fn[1].Properties.MemorySizeMB = 512;
    const role = Object.entries(mutated.Resources).find(([, r]) => r.Type === 'AWS::IAM::Role')!;
    delete role[1].Properties.AssumeRolePolicyDocument;
    // Act
    const problems = (await validateTemplate(mutated)).map((v) => `${v.resource}.${v.path}: ${v.problem}`);
    // Assess
    expect(problems).toEqual(
      expect.arrayContaining([
        `${fn[0]}.Timeout: expected integer, got "thirty"`,
        expect.stringMatching(new RegExp(`^${fn[0]}\\.MemorySizeMB: unknown property`)),
        `${role[0]}.AssumeRolePolicyDocument: required property missing`,
      ]),
    );
  });

  it('should run every function on nodejs22.x with its own role and the shared environment', () => {
    // Prepare
    const functions = ofType('AWS::Lambda::Function');

    // Act
    const shapes = functions.map(([id, f]) => ({
      id,
      runtime: f.Properties.Runtime,
      role: f.Properties.Role,
      env: Object.keys((f.Properties.Environment as { Variables: object }).Variables),
    }));

    // Assess
    expect(functions.length).toBeGreaterThanOrEqual(18);
    for (const s of shapes) {
      expect(s.runtime, s.id).toBe('nodejs22.x');
      const roleId = (s.role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
      expect(roleId, s.id).toBe(s.id.replace(/LambdaFunction$/, 'Role'));
      expect(resources[roleId]?.Type).toBe('AWS::IAM::Role');
      expect(s.env).toEqual(
        expect.arrayContaining([
          'CLUSTER_NAME',
          'STATE_TABLE_NAME',
          'LAUNCH_STATE_MACHINE_ARN',
          'TERMINATE_STATE_MACHINE_ARN',
          'DISRUPT_STATE_MACHINE_ARN',
          'INTERRUPTION_QUEUE_URL',
          'NODE_ROLE_NAME',
        ]),
      );
    }
  });

  it('should define the launch, terminate and disrupt state machines from the ASL files', () => {
    // Prepare
    const machines = ofType('AWS::StepFunctions::StateMachine');

    // Act
    const byId = Object.fromEntries(machines.map(([id, m]) => [id, JSON.stringify(m.Properties.DefinitionString)]));

    // Assess
    expect(Object.keys(byId).sort()).toEqual(['DisruptStateMachine', 'LaunchStateMachine', 'TerminateStateMachine']);
    expect(byId.LaunchStateMachine).toContain('LaunchNodeClaimLambdaFunction');
    expect(byId.LaunchStateMachine).toContain('InsufficientCapacityError');
    expect(byId.TerminateStateMachine).toContain('EvictPodsLambdaFunction');
    expect(byId.DisruptStateMachine).toContain('UntaintCandidatesLambdaFunction');
  });

  it('should run the controller every minute as a heartbeat (holder and successor at most), and the provisioner only when invoked', () => {
    // Prepare
    const rules = ofType('AWS::Events::Rule').map(([, r]) => r.Properties);

    // Act
    const schedule = rules.find((r) => JSON.stringify(r.Targets).includes('ControllerLambdaFunction'));

    // Assess
    expect(schedule?.ScheduleExpression).toBe('rate(1 minute)');
    expect(resources.ControllerLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(2);
    expect(resources.ControllerLambdaFunction.Properties.Timeout).toBe(900);
    // controllerMemorySize's default (docs/controller.md, "Sizing"), an integer as serverless validates it
    expect(resources.ControllerLambdaFunction.Properties.MemorySize).toBe(160);
    expect(rules.some((r) => JSON.stringify(r.Targets).includes('ProvisionerLambdaFunction'))).toBe(false);
    expect(resources.ProvisionerLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(1);
  });

  it('should trigger the interruption function from its queue with a capped concurrency, a 1 s batching window and partial batch failures', () => {
    // Act
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    const queue = resources.InterruptionQueue.Properties;
    // Assess
    expect(mappings).toEqual([
      expect.objectContaining({
        EventSourceArn: { 'Fn::GetAtt': ['InterruptionQueue', 'Arn'] },
        FunctionName: { 'Fn::GetAtt': ['InterruptionLambdaFunction', 'Arn'] },
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 1,
        ScalingConfig: { MaximumConcurrency: 10 },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      }),
    ]);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * (resources.InterruptionLambdaFunction.Properties.Timeout as number));
  });

  it('should create the state table with a TTL attribute', () => {
    // Prepare
    const [[, table]] = ofType('AWS::DynamoDB::Table');

    // Act
    const ttl = table.Properties.TimeToLiveSpecification;

    // Assess
    expect(ttl).toEqual({ AttributeName: 'expiresAtSec', Enabled: true });
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it("should condition every EC2 write on this cluster's ownership tag (except the launch inputs Karpenter leaves open)", () => {
    // Prepare
    const writes = /^ec2:(RunInstances|CreateFleet|CreateLaunchTemplate|CreateTags|TerminateInstances|DeleteLaunchTemplate|DeleteTags)$/;
    const openInputs = /(image|snapshot|security-group|subnet|capacity-reservation)\/\*/;

    // Act
    const statements = ofType('AWS::IAM::Role')
      .flatMap(([id, r]) => statementsOf(r).map((s) => ({ id, s })))
      .filter(({ s }) => s.Effect === 'Allow' && actions(s).some((a) => writes.test(a)));

    // Assess
    expect(statements.length).toBeGreaterThan(0);
    for (const { id, s } of statements) {
      const onlyOpenInputs = Array.isArray(s.Resource) && s.Resource.every((r) => openInputs.test(JSON.stringify(r)));
      if (onlyOpenInputs) {
        expect(
          actions(s).every((a) => a === 'ec2:RunInstances' || a === 'ec2:CreateFleet'),
          `${id}/${s.Sid}`,
        ).toBe(true);
        continue;
      }
      // Scoped to this cluster either by the ownership tag key (Karpenter's policy) or by eks:eks-cluster-name=<cluster>.
      const condition = JSON.stringify(s.Condition ?? {});
      const scoped = condition.includes(`kubernetes.io/cluster/${CLUSTER}`) || condition.includes(`"aws:ResourceTag/eks:eks-cluster-name":"${CLUSTER}"`);
      expect(scoped, `${id}/${s.Sid} must be conditioned on this cluster's tags: ${condition}`).toBe(true);
      expect(condition, `${id}/${s.Sid} holds an unresolved variable`).not.toContain('${');
    }
  });

  it('should let only terminateInstance (and garbage collection) terminate instances', () => {
    // Prepare
    const roles = ofType('AWS::IAM::Role');

    // Act
    const terminating = roles
      .filter(([, r]) => statementsOf(r).some((s) => s.Effect === 'Allow' && actions(s).includes('ec2:TerminateInstances')))
      .map(([id]) => id);

    // Assess
    expect(terminating.sort()).toEqual(['GarbageCollectionRole', 'TerminateInstanceRole']);
  });

  it('should keep every log group for a limited time', () => {
    // Prepare
    const groups = ofType('AWS::Logs::LogGroup');

    // Act
    const retention = groups.map(([id, g]) => [id, g.Properties.RetentionInDays]);

    // Assess
    expect(groups.length).toBeGreaterThanOrEqual(19);
    for (const [id, days] of retention) expect(days, String(id)).toBeGreaterThan(0);
  });
});
