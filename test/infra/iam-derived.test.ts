/**
 * Every AWS API call a function makes is allowed by that function's own IAM role, and the role grants nothing
 * it is not seen to use (beyond a short list of actions AWS checks implicitly or paths these scenarios do not
 * reach, each with its reason). The calls are observed, per function, on the simulator running the production
 * handlers through scenarios that exercise launches, interruptions, consolidation, expiry, faults, pricing and
 * instance profiles; roles are read from infra/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { invokeFunction, parseScenario, runScenario, type SimWorld } from '../../shared/sim';

const ROOT = resolve(__dirname, '../..');
const SERVICE: Record<string, string> = {
  EC2Client: 'ec2',
  SSMClient: 'ssm',
  EKSClient: 'eks',
  SFNClient: 'states',
  DynamoDBDocumentClient: 'dynamodb',
  PricingClient: 'pricing',
  IAMClient: 'iam',
  LambdaClient: 'lambda',
  SQSClient: 'sqs',
};
/** Document-client commands and the DynamoDB actions they are. */
const DOC_ACTIONS: Record<string, string> = {
  PutCommand: 'PutItem',
  GetCommand: 'GetItem',
  QueryCommand: 'Query',
  DeleteCommand: 'DeleteItem',
  UpdateCommand: 'UpdateItem',
  ScanCommand: 'Scan',
};
const COMMAND_ACTIONS: Record<string, string> = { InvokeCommand: 'InvokeFunction', ChangeMessageVisibilityBatchCommand: 'ChangeMessageVisibility' };

/** Granted but not seen here, on purpose: actions AWS checks implicitly, and `<function> <action>` paths these scenarios do not reach. */
const NOT_OBSERVED: Record<string, string> = {
  'logs:CreateLogStream': 'Lambda writes the function logs',
  'logs:PutLogEvents': 'Lambda writes the function logs',
  'ec2:RunInstances': 'EC2 checks it on CreateFleet',
  'ec2:CreateTags': 'EC2 checks it on CreateFleet / CreateLaunchTemplate with tags',
  'iam:PassRole': 'IAM checks it when a launch template or instance profile carries the node role',
  'iam:TagInstanceProfile': 'IAM checks it on CreateInstanceProfile with tags',
  'sqs:ReceiveMessage': 'the SQS event source mapping polls for the interruption function',
  'sqs:DeleteMessage': 'the SQS event source mapping deletes handled messages',
  'sqs:GetQueueAttributes': 'the SQS event source mapping reads the queue',
  'sqs:ChangeMessageVisibility': "a failed record's 10 s retry delay (test/sim/interruption-retries.test.ts); no record fails in these scenarios",
  'ec2:DescribeImages': 'AMI selector terms by id, name or tags (the scenarios select AMIs by alias, through SSM)',
};
const UNEXERCISED: Record<string, string> = {
  'disruption ec2:RebootInstances': 'node repair reboots a node with a monitoring-agent fault (test/sim/shipped/node-repair.test.ts)',
  'provisioner ec2:StopInstances': 'standby capacity stops a joined standby node (test/sim/shipped/standby-capacity.test.ts)',
  'provisioner ec2:StartInstances': 'standby capacity starts a standby node for pending pods (test/sim/shipped/standby-capacity.test.ts)',
  'provisioner ec2:DescribeInstances': "standby capacity reads the instance's owner and state before a stop or start (the same test)",
  'launchNodeClaim iam:RemoveRoleFromInstanceProfile': 'a node class whose role changed (test/adapters/aws/instance-profiles.test.ts)',
  'garbageCollection iam:RemoveRoleFromInstanceProfile': 'profile of a deleted node class (test/sim/instance-profiles.test.ts)',
  'garbageCollection iam:DeleteInstanceProfile': 'profile of a deleted node class (test/sim/instance-profiles.test.ts)',
  'garbageCollection ec2:DeleteLaunchTemplate': 'templates of deleted node classes (test/sim/instance-profiles.test.ts)',
  'garbageCollection ec2:TerminateInstances': 'orphan instances (test/core/garbage-collection)',
  'launchNodeClaim iam:CreateInstanceProfile':
    'a launch before garbage collection has resolved its node class (the controller has it do so within seconds; test/adapters/aws/instance-profiles.test.ts)',
  'launchNodeClaim iam:AddRoleToInstanceProfile': 'the same (test/adapters/aws/instance-profiles.test.ts)',
  'garbageCollection states:StartExecution': 'terminate for a NodeClaim or Node deleted with kubectl (test/sim/finalizers.test.ts)',
  'controller states:StartExecution': 'terminate for a NodeClaim or Node deleted with kubectl (test/sim/finalizers.test.ts)',
  'controller states:DescribeExecution': "a deleted claim's next termination attempt after a failed one (test/core/lifecycle/deletions.test.ts)",
  'launchNodeClaim ec2:DescribeInstances': 'the instance of an earlier attempt after IdempotentParameterMismatch (test/adapters/aws/ec2-create-edge.test.ts)',
  'launchNodeClaim dynamodb:PutItem': 'offerings a partial fleet reports out of capacity (the ICE cache)',
  'interruption dynamodb:DeleteItem': 'the per-instance lease released when StartExecution fails',
  'doctor iam:GetInstanceProfile': 'a deploy with nodeInstanceProfileName (test/cli/doctor.test.ts)',
};

type Statement = { Effect: string; Action: string | string[] };
const roleOf = new Map<string, string>();
for (const f of readdirSync(resolve(ROOT, 'infra/functions'))) {
  for (const [key, fn] of Object.entries(parse(readFileSync(resolve(ROOT, 'infra/functions', f), 'utf8')) as Record<string, { role: string }>))
    roleOf.set(key, fn.role);
}
/** Allowed actions of a policy document: a YAML object, or a JSON text built with Fn::Join (a condition key holds a variable). */
function allowedActions(doc: unknown): string[] {
  const statements = (doc as { Statement?: Statement[] }).Statement;
  if (statements) return statements.filter((s) => s.Effect === 'Allow').flatMap((s) => [s.Action].flat());
  const join = (doc as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const text = (join?.[1] ?? []).filter((x): x is string => typeof x === 'string').join('');
  return [...text.matchAll(/"Action"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)].flatMap((m) => [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]));
}

const actionsOf = new Map<string, string[]>();
for (const f of readdirSync(resolve(ROOT, 'infra/resources')).filter((x) => x.startsWith('iam-'))) {
  const doc = parse(readFileSync(resolve(ROOT, 'infra/resources', f), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: { Policies?: { PolicyDocument: unknown }[] } }>;
  };
  for (const [id, r] of Object.entries(doc.Resources)) {
    if (r.Type !== 'AWS::IAM::Role') continue;
    actionsOf.set(
      id,
      (r.Properties.Policies ?? []).flatMap((p) => allowedActions(p.PolicyDocument)),
    );
  }
}
const grants = (granted: string[], action: string) => granted.some((g) => g === action || (g.endsWith('*') && action.startsWith(g.slice(0, -1))));

function actionOf(call: string): string {
  const [client, command] = call.split('.');
  const service = SERVICE[client];
  const name = client === 'DynamoDBDocumentClient' ? DOC_ACTIONS[command] : (COMMAND_ACTIONS[command] ?? command.replace(/Command$/, ''));
  return `${service}:${name}`;
}

describe('IAM roles derived from the calls the functions make', () => {
  const seen = new Map<string, Set<string>>();
  beforeAll(async () => {
    for (const name of ['walkthrough', 'spot-interruption-pdb', 'eu-west-1']) {
      // After the walkthrough, the operator runs `nodewright doctor --in-stack` (the doctor function).
      const atEnd = name === 'walkthrough' ? async (world: SimWorld) => void (await invokeFunction(world, 'doctor', {})) : undefined;
      const scenario = parseScenario(readFileSync(resolve(ROOT, `examples/scenarios/${name}.yaml`), 'utf8'), `${name}.yaml`);
      const run = await runScenario(scenario, atEnd ? { atEnd } : {});
      for (const [key, calls] of Object.entries(run.awsCalls)) for (const c of calls) (seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(actionOf(c));
    }
  }, 300_000);

  it('should allow every call each function made in its own role', () => {
    // Act
    const missing = [...seen].flatMap(([key, actions]) => {
      const role = roleOf.get(key);
      const granted = role ? (actionsOf.get(role) ?? []) : [];
      return [...actions].filter((a) => !grants(granted, a)).map((a) => `${key} (${role ?? 'no role'}): ${a}`);
    });
    // Assess
    expect(seen.size).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('should grant a function nothing it was not seen to use, except the listed implicit and unexercised actions', () => {
    // Act
    const extra = [...seen].flatMap(([key, actions]) => {
      const granted = actionsOf.get(roleOf.get(key) ?? '') ?? [];
      return granted.filter((g) => !actions.has(g) && !NOT_OBSERVED[g] && !UNEXERCISED[`${key} ${g}`]).map((g) => `${key} ${g}`);
    });
    // Assess
    expect(extra).toEqual([]);
  });
});
