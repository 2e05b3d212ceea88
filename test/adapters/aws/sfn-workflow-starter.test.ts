import { DescribeExecutionCommand, ExecutionAlreadyExists, ExecutionDoesNotExist, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { isThrottledError } from '../../../shared/core/errors';
import { sanitizeExecutionName, SfnWorkflowStarter, StateMachineUnknownError } from '../../../shared/adapters/aws/sfn';

const ARN = 'arn:aws:states:us-east-1:111122223333:stateMachine:nodewright-terminate';

describe('SfnWorkflowStarter', () => {
  const sfn = mockClient(SFNClient);
  beforeEach(() => sfn.reset());
  const starter = () => new SfnWorkflowStarter({ sfn: new SFNClient({ region: 'us-east-1' }), stateMachineArns: { terminate: ARN } });

  it('should start the named machine with the JSON input and a valid name', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN.replace('stateMachine', 'execution')}:i-0abc-evt1`, startDate: new Date() });
    // Act
    const out = await starter().start('terminate', 'i-0abc-evt1', { instanceId: 'i-0abc' });
    // Assess
    expect(out).toEqual({ executionArn: 'arn:aws:states:us-east-1:111122223333:execution:nodewright-terminate:i-0abc-evt1', alreadyStarted: false });
    expect(sfn.commandCalls(StartExecutionCommand)[0].args[0].input).toEqual({ stateMachineArn: ARN, name: 'i-0abc-evt1', input: '{"instanceId":"i-0abc"}' });
  });

  it('should read the status and stop time of an execution by name, and answer undefined for one that does not exist', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand, { executionArn: 'arn:aws:states:us-east-1:111122223333:execution:nodewright-terminate:x1' })
      .resolves({ status: 'ABORTED', stopDate: new Date(Date.UTC(2026, 0, 1)) });
    sfn
      .on(DescribeExecutionCommand, { executionArn: 'arn:aws:states:us-east-1:111122223333:execution:nodewright-terminate:x2' })
      .rejects(new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} }));
    // Act
    const [aborted, none] = [await starter().status('terminate', 'x1'), await starter().status('terminate', 'x2')];
    // Assess
    expect([aborted, none]).toEqual([{ status: 'ABORTED', stoppedAt: Date.UTC(2026, 0, 1) }, undefined]);
  });

  it('should report alreadyStarted when the execution name was used before', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));
    // Act
    const out = await starter().start('terminate', 'i-0abc-evt1', {});
    // Assess
    expect(out).toEqual({ executionArn: 'arn:aws:states:us-east-1:111122223333:execution:nodewright-terminate:i-0abc-evt1', alreadyStarted: true });
  });

  it('should map throttling to CloudProviderThrottledError', async () => {
    // Prepare
    const err = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    sfn.on(StartExecutionCommand).rejects(err);
    // Act
    const act = starter().start('terminate', 'x', {});
    // Assess
    await expect(act).rejects.toSatisfy(isThrottledError);
  });

  it('should refuse an unknown workflow without calling Step Functions', async () => {
    // Prepare
    const s = starter();
    // Act
    const act = s.start('launch', 'x', {});
    // Assess
    await expect(act).rejects.toThrow(StateMachineUnknownError);
    await expect(act).rejects.toThrow(/launch/);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});

describe('sanitizeExecutionName', () => {
  it('should keep a valid name unchanged', () => {
    expect(sanitizeExecutionName('default-x7k2p-launch')).toBe('default-x7k2p-launch');
  });

  it('should replace forbidden characters and cap the length, deterministically and without collisions', () => {
    // Prepare
    const long = `terminate:${'ip-10-0-1-23.ec2.internal/'.repeat(5)}`;
    // Act
    const a = sanitizeExecutionName(long);
    const again = sanitizeExecutionName(long);
    const other = sanitizeExecutionName(long.replace('23', '24'));
    const colon = sanitizeExecutionName('a:b');
    // Assess
    expect(a).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(a).toBe(again);
    expect(a).not.toBe(other);
    expect(colon).toMatch(/^a-b-[0-9a-f]{8}$/);
    expect(colon).not.toBe(sanitizeExecutionName('a-b'));
  });
});
