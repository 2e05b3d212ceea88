/**
 * The simulated AWS behind every SDK v3 client the production code builds: EC2 (Ec2World), SSM (EKS AMI
 * parameters), EKS (DescribeCluster → the fake API server), the Price List API (./pricing.ts), Step Functions (StartExecution → the local ASL
 * runner), DynamoDB (the state table) and Lambda Invoke (the controller calling the provisioner and disruption). aws-sdk-client-mock replaces `send` on each client class, so the
 * composition root's own `new EC2Client()` etc. are answered.
 */
import { DescribeClusterCommand, EKSClient, ListAccessEntriesCommand, ResourceNotFoundException } from '@aws-sdk/client-eks';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeExecutionCommand, ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { defaultQueueName } from '../../adapters/config';
import type { DynamoTable } from './dynamo-table';
import { installEc2, type CommandStub } from './ec2-mock';
import { simulatedGetProducts } from './pricing';
import { installIam } from './iam-mock';
import { IAMClient } from '@aws-sdk/client-iam';
import type { Ec2World } from './ec2-world';

interface SimulatedCluster {
  name: string;
  endpoint: string;
  caData: string;
  version: string;
}

export interface ExecutionStarter {
  /** Starts (or finds) an execution; throws ExecutionAlreadyExists for a used name with another input. */
  start(stateMachineArn: string, name: string, input: string): { executionArn: string; startDate: Date; existing: boolean; sameInput: boolean };
  describe(executionArn: string): { status: string; startDate: Date; stopDate?: Date; input: string; output?: string } | undefined;
}

export interface SimulatedAws {
  world: Ec2World;
  table: DynamoTable;
  cluster: SimulatedCluster;
  stepFunctions: ExecutionStarter;
  /** IAM role names of the deployed functions (their access entries). */
  functionRoles?: string[];
  /** Reserved concurrency of each deployed function, by function name (GetFunctionConcurrency, GetAccountSettings). */
  functionConcurrency?: Record<string, number | undefined>;
  /** Lambda Invoke (RequestResponse) of a deployed function, by its function key. */
  invokeFunction?(functionName: string, payload: unknown): Promise<unknown>;
  /** The interruption queue: ChangeMessageVisibility by receipt handle (runtime/triggers.ts). */
  queue?: { changeVisibility(receiptHandle: string, seconds: number): boolean; requests: { visibilityChanges: number } };
}

const SIMULATED_ACCOUNT_CONCURRENCY = 1000;

/** The client classes the mocks answer (metering.ts counts the functions' calls through them). */
export const SIMULATED_AWS_CLIENTS = [EC2Client, SSMClient, EKSClient, SFNClient, DynamoDBDocumentClient, PricingClient, IAMClient, LambdaClient, SQSClient];

/** Step Functions: StartExecution (idempotent on name and input) and DescribeExecution, by the simulated runner. */
function mockStepFunctions(current: () => SimulatedAws) {
  const sfn = mockClient(SFNClient);
  sfn.on(StartExecutionCommand).callsFake(async (input: { stateMachineArn?: string; name?: string; input?: string }) => {
    const started = current().stepFunctions.start(input.stateMachineArn ?? '', input.name ?? '', input.input ?? '{}');
    if (started.existing && !started.sameInput)
      throw new ExecutionAlreadyExists({ $metadata: {}, message: `Execution Already Exists: '${started.executionArn}'` });
    return { executionArn: started.executionArn, startDate: started.startDate };
  });
  sfn.on(DescribeExecutionCommand).callsFake(async (input: { executionArn?: string }) => {
    const e = current().stepFunctions.describe(input.executionArn ?? '');
    if (!e) throw Object.assign(new Error(`Execution Does Not Exist: '${input.executionArn}'`), { name: 'ExecutionDoesNotExist' });
    return { executionArn: input.executionArn, ...e };
  });
  return sfn;
}

/**
 * Lambda Invoke of a deployed function: RequestResponse answers with its result (a thrown error comes back as the
 * FunctionError payload); Event (asynchronous) answers 202 at once and the function runs on its own.
 */
function mockLambdaInvoke(current: () => SimulatedAws) {
  const lambda = mockClient(LambdaClient);
  lambda.on(InvokeCommand).callsFake(async (input: { FunctionName?: string; Payload?: Uint8Array; InvocationType?: string }) => {
    const payload = input.Payload ? (JSON.parse(new TextDecoder().decode(input.Payload)) as unknown) : {};
    const invoke = current().invokeFunction;
    if (input.InvocationType === 'Event') {
      if (!invoke) throw Object.assign(new Error(`Function not found: ${String(input.FunctionName)}`), { name: 'ResourceNotFoundException' });
      // Lambda retries a failed asynchronous invocation on its own; nothing comes back to the caller.
      void invoke(String(input.FunctionName ?? ''), payload).catch(() => undefined);
      return { StatusCode: 202 };
    }
    try {
      if (!invoke) throw new Error(`no simulated function behind ${String(input.FunctionName)}`);
      const out = await invoke(String(input.FunctionName ?? ''), payload);
      return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(out ?? null)) };
    } catch (e) {
      const body = { errorType: e instanceof Error ? e.name : 'Error', errorMessage: e instanceof Error ? e.message : String(e) };
      return { StatusCode: 200, FunctionError: 'Unhandled', Payload: new TextEncoder().encode(JSON.stringify(body)) };
    }
  });
  // The simulated account's concurrency: Lambda's default limit of 1,000, less what the deployed functions reserve.
  lambda.on(GetAccountSettingsCommand).callsFake(async () => {
    const reserved = Object.values(current().functionConcurrency ?? {}).reduce<number>((n, r) => n + (r ?? 0), 0);
    return { AccountLimit: { ConcurrentExecutions: SIMULATED_ACCOUNT_CONCURRENCY, UnreservedConcurrentExecutions: SIMULATED_ACCOUNT_CONCURRENCY - reserved } };
  });
  lambda.on(GetFunctionConcurrencyCommand).callsFake(async (input: { FunctionName?: string }) => {
    const all = current().functionConcurrency ?? {};
    const name = String(input.FunctionName ?? '');
    if (!(name in all)) throw Object.assign(new Error(`Function not found: ${name}`), { name: 'ResourceNotFoundException' });
    return all[name] !== undefined ? { ReservedConcurrentExecutions: all[name] } : {};
  });
  return lambda;
}

type SendFn = (this: unknown, ...args: unknown[]) => unknown;

/** Calls between two resets of the mocks' call history. */
const FORGET_HISTORY_EVERY = 256;

/**
 * aws-sdk-client-mock (sinon) records every call, its input and its answer, for test assertions the simulator
 * never makes: over a long run that history holds every page of the catalog every cold sandbox read. It is reset
 * every FORGET_HISTORY_EVERY calls, before a call (sinon refuses a reset during one). The mocks' restore removes
 * the wrappers with the stubs.
 */
function forgetHistory(mocks: { resetHistory(): unknown }[], classes: { prototype: object }[]): void {
  let calls = 0;
  for (const cls of classes) {
    const proto = cls.prototype as { send: SendFn };
    const stub = proto.send;
    proto.send = function (this: unknown, ...args: unknown[]) {
      if (++calls % FORGET_HISTORY_EVERY === 0) for (const m of mocks) m.resetHistory();
      return stub.apply(this, args);
    };
  }
}

/** Installs the mocks; every call reads `current()` so one installation can serve successive runs. Returns restore. */
export function installSimulatedAws(current: () => SimulatedAws): () => void {
  const ec2 = mockClient(EC2Client);
  installEc2(ec2 as unknown as CommandStub, () => current().world);

  const ssm = mockClient(SSMClient);
  ssm.on(GetParameterCommand).callsFake(async (input: { Name?: string }) => {
    const name = input.Name ?? '';
    if (!/^\/aws\/service\/.+\/image_id$/.test(name)) throw new ParameterNotFound({ $metadata: {}, message: `Parameter ${name} not found.` });
    const image = current().world.imageForParameter(name);
    return { Parameter: { Name: name, Type: 'String', Value: image.id, Version: 1 } };
  });

  const eks = mockClient(EKSClient);
  eks.on(DescribeClusterCommand).callsFake(async (input: { name?: string }) => {
    const c = current().cluster;
    if (input.name !== c.name) throw new ResourceNotFoundException({ $metadata: {}, message: `No cluster found for name: ${input.name}.` });
    return {
      cluster: {
        name: c.name,
        arn: `arn:aws:eks:${current().world.region}:000000000000:cluster/${c.name}`,
        endpoint: c.endpoint,
        status: 'ACTIVE',
        version: c.version,
        certificateAuthority: { data: c.caData },
        kubernetesNetworkConfig: { serviceIpv4Cidr: '10.100.0.0/16', ipFamily: 'ipv4' },
      },
    };
  });

  const sfn = mockStepFunctions(current);

  const dynamo = mockClient(DynamoDBDocumentClient);
  const table = dynamo as unknown as CommandStub;
  table.on(PutCommand).callsFake(async (input: never) => current().table.put(input));
  table.on(DeleteCommand).callsFake(async (input: never) => current().table.delete(input));
  table.on(GetCommand).callsFake(async (input: never) => current().table.get(input));
  table.on(QueryCommand).callsFake(async (input: never) => current().table.query(input));

  const lambda = mockLambdaInvoke(current);

  const pricing = mockClient(PricingClient);
  pricing.on(GetProductsCommand).callsFake(async (input: Parameters<typeof simulatedGetProducts>[1]) => simulatedGetProducts(current().world.catalog(), input));

  const restoreIam = installIam(() => current().world);

  // What `nodewright doctor` reads: the deployed functions' and node roles' access entries (the simulated API server
  // lets the functions in by their EKS token) and the interruption queue EventBridge sends to.
  eks.on(ListAccessEntriesCommand).callsFake(async (input: { clusterName?: string }) => {
    const c = current();
    if (input.clusterName !== c.cluster.name)
      throw new ResourceNotFoundException({ $metadata: {}, message: `No cluster found for name: ${input.clusterName}.` });
    // The node roles too: the getting-started stack gives each an EC2_LINUX entry, so that its nodes join.
    const roles = [...(c.functionRoles ?? []), ...c.world.roles];
    return { accessEntries: roles.map((r) => `arn:aws:iam::000000000000:role/${r}`) };
  });
  const sqs = mockSqs(current);

  const mocks = [ec2, ssm, eks, sfn, dynamo, lambda, pricing, sqs];
  forgetHistory(mocks, [EC2Client, SSMClient, EKSClient, SFNClient, DynamoDBDocumentClient, LambdaClient, PricingClient, SQSClient]);
  return () => {
    for (const m of mocks) m.restore();
    restoreIam();
  };
}

/** The interruption queue as `doctor` and the interruption function use it: its URL, attributes and visibility changes. */
function mockSqs(current: () => SimulatedAws) {
  const sqs = mockClient(SQSClient);
  sqs.on(GetQueueUrlCommand).callsFake(async (input: { QueueName?: string }) => {
    const c = current();
    if (input.QueueName !== defaultQueueName(c.cluster.name)) throw new QueueDoesNotExist({ $metadata: {}, message: 'The specified queue does not exist.' });
    return { QueueUrl: `https://sqs.${c.world.region}.amazonaws.com/000000000000/${input.QueueName}` };
  });
  // The interruption function hides a failed record for a short retry delay instead of the visibility timeout.
  sqs.on(ChangeMessageVisibilityBatchCommand).callsFake(async (input: { Entries?: { Id?: string; ReceiptHandle?: string; VisibilityTimeout?: number }[] }) => {
    const q = current().queue;
    if (q) q.requests.visibilityChanges++;
    const results = (input.Entries ?? []).map((e) => ({ e, ok: q?.changeVisibility(e.ReceiptHandle ?? '', e.VisibilityTimeout ?? 0) ?? false }));
    return {
      Successful: results.filter((r) => r.ok).map((r) => ({ Id: r.e.Id })),
      Failed: results
        .filter((r) => !r.ok)
        .map((r) => ({ Id: r.e.Id, Code: 'ReceiptHandleIsInvalid', SenderFault: true, Message: 'The receipt handle has expired.' })),
    };
  });
  sqs.on(ChangeMessageVisibilityCommand).callsFake(async (input: { ReceiptHandle?: string; VisibilityTimeout?: number }) => {
    const q = current().queue;
    if (q) q.requests.visibilityChanges++;
    q?.changeVisibility(input.ReceiptHandle ?? '', input.VisibilityTimeout ?? 0);
    return {};
  });
  sqs.on(GetQueueAttributesCommand).callsFake(async () => ({
    Attributes: {
      ApproximateNumberOfMessages: '0',
      Policy: JSON.stringify({
        Statement: [{ Effect: 'Allow', Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] }, Action: 'sqs:SendMessage' }],
      }),
    },
  }));
  return sqs;
}
