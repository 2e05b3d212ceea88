/**
 * The interruption and garbage-collection handlers over the real EC2 cloud provider and Step Functions
 * starter, with the SDK answered by aws-sdk-client-mock: what reaches AWS is what is asserted.
 */
import { DescribeInstancesCommand, EC2Client, TerminateInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler as createInterruptionHandler } from '../../../functions/interruption/interruption';
import { createHandler as createGcHandler } from '../../../functions/garbage-collection/garbage-collection';
import { Ec2CloudProvider } from '../../../shared/adapters/aws/ec2';
import { SfnWorkflowStarter } from '../../../shared/adapters/aws/sfn';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store';
import { eventBody, sqsEvent, sqsRecord } from '../../fixtures/events';
import { CLUSTER, FakeCluster, NOW, RecordingLogger, fixedClock, nodeClaim } from '../../fakes/interruption';

const TERMINATE_ARN = 'arn:aws:states:us-west-2:123456789012:stateMachine:nodewright-demo-terminate';
const DISRUPT_ARN = 'arn:aws:states:us-west-2:123456789012:stateMachine:nodewright-demo-disrupt';
const OWNED = 'i-0b2c3d4e5f6a7b8c9';
const FOREIGN = 'i-0ffffffffffffffff';
const ORPHAN = 'i-0a0a0a0a0a0a0a0a0';

const ec2Mock = mockClient(EC2Client);
const sfnMock = mockClient(SFNClient);
afterEach(() => {
  ec2Mock.reset();
  sfnMock.reset();
});

function ec2Instance(id: string, tags: Record<string, string>, launchedMsAgo = 3_600_000): Instance {
  return {
    InstanceId: id,
    InstanceType: 'm5.large',
    InstanceLifecycle: 'spot',
    Placement: { AvailabilityZone: 'us-west-2a' },
    State: { Name: 'running', Code: 16 },
    LaunchTime: new Date(NOW - launchedMsAgo),
    Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
  };
}

const ownedTags = { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/nodeclaim': 'default-abcde' };
const world = [
  ec2Instance(OWNED, ownedTags),
  ec2Instance(FOREIGN, { Name: 'bastion' }),
  ec2Instance(ORPHAN, { [`kubernetes.io/cluster/${CLUSTER}`]: 'owned', 'karpenter.sh/nodepool': 'default' }),
];

/** DescribeInstances as EC2 answers it: by ids, or by the cluster-tag filters. */
function answerDescribeInstances() {
  ec2Mock.on(DescribeInstancesCommand).callsFake((input) => {
    const byId = input.InstanceIds as string[] | undefined;
    const owned = (i: Instance) =>
      i.Tags?.some((t) => t.Key === `kubernetes.io/cluster/${CLUSTER}` && t.Value === 'owned') && i.Tags?.some((t) => t.Key === 'karpenter.sh/nodepool');
    const found = byId ? world.filter((i) => byId.includes(i.InstanceId!)) : world.filter(owned);
    return { Reservations: [{ Instances: found }] };
  });
  ec2Mock.on(TerminateInstancesCommand).resolves({});
}

/**
 * StartExecution as Step Functions (standard) answers it: a new name starts an execution; the same name and
 * input while it runs gets the original response; a different input is ExecutionAlreadyExists.
 */
function answerStartExecution() {
  const executions = new Map<string, { input?: string; executionArn: string }>();
  sfnMock.on(StartExecutionCommand).callsFake((input) => {
    const previous = executions.get(input.name);
    if (previous && previous.input !== input.input) throw new ExecutionAlreadyExists({ message: `Execution Already Exists: '${input.name}'`, $metadata: {} });
    const executionArn = previous?.executionArn ?? `${TERMINATE_ARN.replace(':stateMachine:', ':execution:')}:${input.name}`;
    executions.set(input.name, { input: input.input, executionArn });
    return { executionArn, startDate: new Date(NOW) };
  });
  return executions;
}

function adapters() {
  const state = new MemoryStateStore(fixedClock);
  const cloud = new Ec2CloudProvider({
    ec2: new EC2Client({ region: 'us-west-2' }),
    ssm: new SSMClient({ region: 'us-west-2' }),
    clusterName: CLUSTER,
    region: 'us-west-2',
    stateStore: state,
    clock: fixedClock,
    catalog: [],
  });
  const workflows = new SfnWorkflowStarter({
    sfn: new SFNClient({ region: 'us-west-2' }),
    stateMachineArns: { terminate: TERMINATE_ARN, disrupt: DISRUPT_ARN },
  });
  const cluster = new FakeCluster([nodeClaim('default-abcde', { instanceId: OWNED, registered: true, nodeName: 'ip-10-0-1-5' })]);
  return { store: state, cloud, workflows, cluster, log: new RecordingLogger() };
}

describe('interruption over the AWS adapters', () => {
  it('should create exactly one execution and mark the offering once for a spot warning delivered three times, and never terminate anything', async () => {
    // Prepare
    answerDescribeInstances();
    const executions = answerStartExecution();
    const deps = adapters();
    const handler = createInterruptionHandler({ ...deps, clock: fixedClock, clusterName: CLUSTER });
    const body = eventBody('spot-interruption-warning');
    // Act
    for (const id of ['m1', 'm2', 'm3']) await handler(sqsEvent(sqsRecord(body, id)));
    // Assess
    const starts = sfnMock.commandCalls(StartExecutionCommand).map((c) => c.args[0].input);
    expect(executions.size).toBe(1);
    expect(starts[0]).toMatchObject({ stateMachineArn: DISRUPT_ARN, name: `interruption-${OWNED}-1e5527d7-bb36-4607-3370-4164db56a40e` });
    expect(JSON.parse(starts[0].input ?? '')).toEqual({
      reason: 'SpotInterruption',
      candidates: [{ nodeClaimName: 'default-abcde' }],
      replacements: [],
      interruption: { kind: 'SpotInterruption', drainBy: expect.any(Number) },
    });
    expect(await deps.store.unavailableOfferings()).toHaveLength(1);
    expect(await deps.store.auditLog({ kind: 'interruption' })).toHaveLength(1);
    expect(ec2Mock.commandCalls(TerminateInstancesCommand)).toEqual([]);
  });

  it('should send nothing to Step Functions for a foreign instance', async () => {
    // Prepare
    answerDescribeInstances();
    answerStartExecution();
    const deps = adapters();
    const handler = createInterruptionHandler({ ...deps, clock: fixedClock, clusterName: CLUSTER });
    // Act
    const response = await handler(sqsEvent(sqsRecord(eventBody('spot-interruption-warning', { instanceId: FOREIGN }))));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(sfnMock.commandCalls(StartExecutionCommand)).toEqual([]);
    expect(ec2Mock.commandCalls(TerminateInstancesCommand)).toEqual([]);
  });
});

describe('garbage collection over the EC2 adapter', () => {
  it('should send TerminateInstances for the orphan only', async () => {
    // Prepare
    answerDescribeInstances();
    const deps = adapters();
    const handler = createGcHandler({ ...deps, clock: fixedClock, clusterName: CLUSTER });
    // Act
    const result = await handler();
    // Assess
    expect(ec2Mock.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input)).toEqual([{ InstanceIds: [ORPHAN] }]);
    expect(result.actions).toEqual([{ type: 'terminateOrphanInstance', target: ORPHAN, outcome: 'done' }]);
  });
});
