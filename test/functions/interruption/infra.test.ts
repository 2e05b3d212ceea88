/**
 * The infra fragments of the interruption and garbage-collection functions, read as serverless.yml
 * includes them (YAML with `${…}` Serverless variables left unresolved).
 */
import { deployedFunctions } from '../../../shared/sim/runtime/functions';
import { defaultQueueName } from '../../../shared/adapters/config';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DetailType, EventSource } from '../../../shared/core/interruption';
import { InterruptionRetry } from '../../../shared/core/interruption/retry';
import { eventFixture, type EventFixture } from '../../fixtures/events';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const read = (path: string): Doc => parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'));

const queueFile = read('infra/resources/interruption.yml');
const resources: Doc = queueFile.Resources;
const interruptionFn: Doc = read('infra/functions/interruption.yml').interruption;
const gcFn: Doc = read('infra/functions/garbage-collection.yml').garbageCollection;
const interruptionRole: Doc = read('infra/resources/iam-interruption.yml').Resources.InterruptionRole;
const gcRole: Doc = read('infra/resources/iam-garbage-collection.yml').Resources.GarbageCollectionRole;

/** A policy document, or one written as a JSON string (Fn::Join, for condition keys holding the cluster name) with its intrinsics as `<ref>`. */
const documentOf = (d: Doc): Doc =>
  d['Fn::Join'] ? JSON.parse((d['Fn::Join'][1] as unknown[]).map((x) => (typeof x === 'string' ? x : '<ref>')).join('')) : d;
const statements = (role: Doc): Doc[] => role.Properties.Policies.flatMap((p: Doc) => documentOf(p.PolicyDocument).Statement);
const actionsOf = (role: Doc): string[] => statements(role).flatMap((s) => [s.Action].flat());
const rules = Object.values(resources).filter((r) => r.Type === 'AWS::Events::Rule');

/** EventBridge matching for the subset the rules use: exact values in arrays, nested objects. */
function matches(pattern: Doc, event: Doc): boolean {
  return Object.entries(pattern).every(([key, expected]) =>
    Array.isArray(expected) ? expected.includes(event[key]) : typeof event[key] === 'object' && matches(expected, event[key]),
  );
}

describe('interruption queue', () => {
  it('should encrypt messages with SSE-SQS and take its name from the parameter', () => {
    // Act
    const queue = resources.InterruptionQueue.Properties;
    // Assess
    expect(queue).toMatchObject({ QueueName: '${param:interruptionQueueName}', SqsManagedSseEnabled: true });
  });

  it("should not default to the cluster's name, which Karpenter's getting-started stack gives its own queue", () => {
    // Act: the deploy's default, and what doctor and the simulator take it to be
    const params = read('serverless.yml').params.default;

    // Assess: a deploy beside Karpenter does not fail with "already exists"
    expect(params.interruptionQueueName).toBe('nodewright-${param:clusterName}');
    expect(defaultQueueName('demo')).toBe('nodewright-demo');
  });

  it('should send messages that keep failing to an encrypted dead-letter queue that keeps them longer than the queue', () => {
    // Act
    const { RedrivePolicy, MessageRetentionPeriod } = resources.InterruptionQueue.Properties;
    const dlq = resources.InterruptionDeadLetterQueue.Properties;
    // Assess
    expect(RedrivePolicy.deadLetterTargetArn).toEqual({ 'Fn::GetAtt': ['InterruptionDeadLetterQueue', 'Arn'] });
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(dlq.MessageRetentionPeriod).toBeGreaterThan(MessageRetentionPeriod);
  });

  it('should let EventBridge and SQS send, and deny any call without TLS', () => {
    // Act
    const [allow, deny] = resources.InterruptionQueuePolicy.Properties.PolicyDocument.Statement;
    // Assess
    expect(allow).toMatchObject({ Effect: 'Allow', Action: 'sqs:SendMessage', Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] } });
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: '*', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it("should keep the visibility timeout at least 6 times the function's timeout (AWS's guidance for an SQS trigger)", () => {
    // Assess
    expect(resources.InterruptionQueue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * interruptionFn.timeout);
  });

  it('should retry a failing spot warning throughout its 2-minute notice before dead-lettering it', () => {
    // Act: a failed record comes back InterruptionRetry.retrySeconds later (plus the time its attempt took)
    const { maxReceiveCount } = resources.InterruptionQueue.Properties.RedrivePolicy;
    // Assess
    expect((maxReceiveCount - 1) * InterruptionRetry.retrySeconds).toBeGreaterThanOrEqual(120);
  });

  it('should keep a message until it is handled or dead-lettered, even when every attempt dies and waits out the visibility timeout', () => {
    // Act
    const { MessageRetentionPeriod, VisibilityTimeout, RedrivePolicy } = resources.InterruptionQueue.Properties;
    // Assess
    expect(MessageRetentionPeriod).toBeGreaterThanOrEqual(RedrivePolicy.maxReceiveCount * VisibilityTimeout);
  });

  it('should hold the follow-up lease of an event longer than the queue keeps any delivery of it', () => {
    // Assess
    expect(InterruptionRetry.followUpLeaseSeconds).toBeGreaterThan(resources.InterruptionQueue.Properties.MessageRetentionPeriod);
  });

  it('should give up on a record before the function times out, leaving it time to answer', () => {
    // Assess
    expect(InterruptionRetry.deadlineMarginMs).toBeGreaterThanOrEqual(1_000);
    expect(InterruptionRetry.deadlineMarginMs).toBeLessThan(interruptionFn.timeout * 1000);
  });
});

describe('interruption EventBridge rules', () => {
  it('should have one rule per event kind the function handles, each targeting the queue', () => {
    // Act
    const kinds = rules.map((r) => `${r.Properties.EventPattern.source[0]} / ${r.Properties.EventPattern['detail-type'][0]}`).sort();
    // Assess
    expect(kinds).toEqual(
      [
        `${EventSource.health} / ${DetailType.scheduledChange}`,
        ...[DetailType.capacityReservationInterruption, DetailType.rebalanceRecommendation, DetailType.instanceStateChange, DetailType.spotInterruption].map(
          (d) => `${EventSource.ec2} / ${d}`,
        ),
      ].sort(),
    );
    for (const rule of rules) expect(rule.Properties.Targets).toEqual([{ Id: 'InterruptionQueue', Arn: { 'Fn::GetAtt': ['InterruptionQueue', 'Arn'] } }]);
  });

  it.each<[EventFixture, boolean]>([
    ['spot-interruption-warning', true],
    ['rebalance-recommendation', true],
    ['instance-state-change-stopping', true],
    ['health-scheduled-change', true],
    ['capacity-reservation-interruption', true],
    ['instance-state-change-running', false],
    ['health-issue-ebs', false],
    ['autoscaling-launch-successful', false],
  ])('should route the %s event to the queue: %s', (fixture, routed) => {
    // Act
    const matched = rules.some((r) => matches(r.Properties.EventPattern, eventFixture(fixture)));
    // Assess
    expect(matched).toBe(routed);
  });
});

describe('function definitions', () => {
  it('should trigger interruption from the queue in batches of 10, gathered for at most 1 s, 10 batches at a time, with partial batch failures', () => {
    // Assess
    expect(interruptionFn.events).toEqual([
      {
        sqs: {
          arn: { 'Fn::GetAtt': ['InterruptionQueue', 'Arn'] },
          batchSize: 10,
          maximumBatchingWindow: 1,
          maximumConcurrency: 10,
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ]);
    expect(interruptionFn.role).toBe('InterruptionRole');
  });

  it('should run garbage collection every 2 minutes, one at a time', () => {
    // Assess
    expect(gcFn.events).toEqual([{ schedule: expect.objectContaining({ rate: 'rate(2 minutes)' }) }]);
    expect(deployedFunctions().find((f) => f.key === 'garbageCollection')?.reservedConcurrency).toBe(1);
    expect(gcFn.role).toBe('GarbageCollectionRole');
  });

  it('should point each handler at a module that exists', () => {
    // Assess
    for (const fn of [interruptionFn, gcFn]) {
      const file = `${fn.handler.replace(/\.handler$/, '')}.ts`;
      expect(existsSync(new URL(`../../../${file}`, import.meta.url)), file).toBe(true);
    }
  });
});

describe('function roles', () => {
  it('should let only garbage collection terminate instances, and only those tagged for this cluster and a NodePool', () => {
    // Act
    const terminate = statements(gcRole).filter((s) => [s.Action].flat().includes('ec2:TerminateInstances'));
    // Assess: as Karpenter's AllowScopedDeletion (instances and launch templates)
    expect(actionsOf(interruptionRole)).not.toContain('ec2:TerminateInstances');
    expect(terminate).toHaveLength(1);
    expect(terminate[0].Action).toEqual(['ec2:TerminateInstances', 'ec2:DeleteLaunchTemplate']);
    expect(terminate[0].Resource).toEqual(['arn:<ref>:ec2:<ref>:<ref>:instance/*', 'arn:<ref>:ec2:<ref>:<ref>:launch-template/*']);
    expect(terminate[0].Condition).toEqual({
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/${param:clusterName}': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    });
  });

  it('should let interruption consume its queue and start only disrupt (replace, then drain) and launch (pre-provision) executions', () => {
    // Act
    const sqs = statements(interruptionRole).find((s) => [s.Action].flat().includes('sqs:ReceiveMessage'));
    const sfn = statements(interruptionRole).find((s) => s.Action === 'states:StartExecution');
    // Assess
    expect(sqs?.Resource).toEqual([{ 'Fn::GetAtt': ['InterruptionQueue', 'Arn'] }]);
    expect([sqs?.Action].flat()).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    expect(sfn?.Resource).toEqual(['${self:provider.environment.DISRUPT_STATE_MACHINE_ARN}', '${self:provider.environment.LAUNCH_STATE_MACHINE_ARN}']);
    expect(actionsOf(gcRole).some((a) => a.startsWith('sqs:'))).toBe(false);
    const gcStates = statements(gcRole).filter((s) => [s.Action].flat().some((a) => String(a).startsWith('states:')));
    expect(gcStates.map((s) => s.Action)).toEqual(['states:StartExecution', 'states:DescribeExecution']);
    expect(gcStates[0].Resource).toEqual(['${self:provider.environment.TERMINATE_STATE_MACHINE_ARN}']);
    expect(JSON.stringify(gcStates[1].Resource)).toMatch(
      /:execution:\$\{self:custom.stateMachineNames.terminate\}:\*.*:execution:\$\{self:custom.stateMachineNames.disrupt\}:\*/,
    );
  });

  it('should keep Serverless variables out of policy keys, where they are never resolved', () => {
    // Act
    const keys: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          keys.push(k);
          walk(x);
        }
      }
    };
    walk([interruptionRole, gcRole, resources]);
    // Assess
    expect(keys.filter((k) => k.includes('${'))).toEqual([]);
  });

  it('should use no wildcard actions, and a wildcard resource only for EC2 reads and the Price List and instance-profile listing (which take no resources)', () => {
    // Act
    const all = [...statements(interruptionRole), ...statements(gcRole)];
    // Assess
    expect(all.flatMap((s) => [s.Action].flat()).filter((a: string) => a.includes('*'))).toEqual([]);
    expect(
      all
        .filter((s) => s.Resource === '*')
        .flatMap((s) => [s.Action].flat())
        .every((a: string) => a.startsWith('ec2:Describe') || a === 'pricing:GetProducts' || a === 'iam:ListInstanceProfiles'),
    ).toBe(true);
  });
});
