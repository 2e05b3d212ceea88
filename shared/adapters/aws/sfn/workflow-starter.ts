import { DescribeExecutionCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { ExecutionInfo, ExecutionStatus, WorkflowName, WorkflowStarter } from '../../../core/ports/workflow-starter';
import { mapAwsError } from '../errors';
import { sanitizeExecutionName } from './execution-name';

export class StateMachineUnknownError extends Error {
  override readonly name = 'StateMachineUnknownError' as const;
}

export interface SfnWorkflowStarterDeps {
  sfn: SFNClient;
  /** State machine ARN per workflow name. */
  stateMachineArns: Partial<Record<WorkflowName, string>>;
}

/** arn:aws:states:r:a:stateMachine:M + name → arn:aws:states:r:a:execution:M:name */
function executionArnFor(stateMachineArn: string, executionName: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
}

/** Starts Step Functions executions with deterministic names; a name already used is success. */
export class SfnWorkflowStarter implements WorkflowStarter {
  constructor(private readonly deps: SfnWorkflowStarterDeps) {}

  async start(machine: WorkflowName, name: string, input: unknown): Promise<{ executionArn: string; alreadyStarted: boolean }> {
    const stateMachineArn = this.deps.stateMachineArns[machine];
    if (!stateMachineArn) {
      throw new StateMachineUnknownError(
        `no state machine ARN configured for workflow "${machine}" (known: ${Object.keys(this.deps.stateMachineArns).join(', ') || 'none'})`,
      );
    }
    const executionName = sanitizeExecutionName(name);
    try {
      const out = await this.deps.sfn.send(new StartExecutionCommand({ stateMachineArn, name: executionName, input: JSON.stringify(input ?? {}) }));
      return { executionArn: out.executionArn ?? executionArnFor(stateMachineArn, executionName), alreadyStarted: false };
    } catch (e) {
      if (e instanceof Error && e.name === 'ExecutionAlreadyExists') {
        return { executionArn: executionArnFor(stateMachineArn, executionName), alreadyStarted: true };
      }
      throw mapAwsError(e, `StartExecution ${machine}/${executionName}`);
    }
  }

  async status(machine: WorkflowName, name: string): Promise<ExecutionInfo | undefined> {
    const stateMachineArn = this.deps.stateMachineArns[machine];
    if (!stateMachineArn) return undefined;
    try {
      const out = await this.deps.sfn.send(new DescribeExecutionCommand({ executionArn: executionArnFor(stateMachineArn, sanitizeExecutionName(name)) }));
      if (!out.status) return undefined;
      return { status: out.status as ExecutionStatus, ...(out.stopDate ? { stoppedAt: out.stopDate.getTime() } : {}) };
    } catch (e) {
      if (e instanceof Error && e.name === 'ExecutionDoesNotExist') return undefined;
      throw mapAwsError(e, `DescribeExecution ${machine}/${name}`);
    }
  }
}
