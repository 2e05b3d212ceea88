/**
 * Step Functions, simulated: StartExecution / DescribeExecution with AWS's name semantics, each execution run by
 * the one local runner (shared/sim/sfn/runner.ts) on the virtual clock — Wait states and Retry intervals take
 * virtual time — as a tracked activity, each Task invoking the deployed handler of its function key.
 */
import type { WorkflowName } from '../../core/ports';
import type { VirtualClock } from '../clock';
import { loadDefinition, runLocalExecution, type AslDefinition, type InvokeFunction } from '../sfn';
import type { ExecutionStarter } from '../aws/services';

export interface ExecutionRecord {
  machine: WorkflowName;
  name: string;
  arn: string;
  input: string;
  startedMs: number;
  stoppedMs?: number;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  error?: string;
  cause?: string;
  output?: string;
  tasks: string[];
  /** Billed state transitions so far (states entered + retries; metering.ts). */
  transitions?: number;
}

export type { InvokeFunction };

export interface SimulatedStepFunctionsOptions {
  /** The scenario's seed (Retry JitterStrategy FULL draws). */
  seed?: number;
  onFinished?: (e: ExecutionRecord) => void;
}

export class SimulatedStepFunctions implements ExecutionStarter {
  readonly executions: ExecutionRecord[] = [];
  private readonly byArn = new Map<string, ExecutionRecord>();
  private readonly definitions = new Map<WorkflowName, AslDefinition>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly arns: Record<WorkflowName, string>,
    private readonly invoke: InvokeFunction,
    private readonly options: SimulatedStepFunctionsOptions = {},
  ) {}

  private machineOf(arn: string): WorkflowName | undefined {
    return (Object.entries(this.arns) as [WorkflowName, string][]).find(([, a]) => a === arn)?.[0];
  }

  /** The machine's ASL file, read once per simulated account. */
  private definition(machine: WorkflowName): AslDefinition {
    let d = this.definitions.get(machine);
    if (!d) {
      d = loadDefinition(machine);
      this.definitions.set(machine, d);
    }
    return d;
  }

  start(stateMachineArn: string, name: string, input: string) {
    const machine = this.machineOf(stateMachineArn);
    if (!machine) throw Object.assign(new Error(`State Machine Does Not Exist: '${stateMachineArn}'`), { name: 'StateMachineDoesNotExist' });
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(arn);
    if (existing)
      return {
        executionArn: arn,
        startDate: new Date(existing.startedMs),
        existing: true,
        sameInput: existing.status === 'RUNNING' && existing.input === input,
      };
    const record: ExecutionRecord = { machine, name, arn, input, startedMs: this.clock.now(), status: 'RUNNING', tasks: [] };
    this.executions.push(record);
    this.byArn.set(arn, record);
    void this.clock.track(`sfn:${machine}:${name}`, () => this.run(record));
    return { executionArn: arn, startDate: new Date(record.startedMs), existing: false, sameInput: true };
  }

  describe(executionArn: string) {
    const e = this.byArn.get(executionArn);
    if (!e) return undefined;
    return {
      status: e.status,
      startDate: new Date(e.startedMs),
      ...(e.stoppedMs !== undefined ? { stopDate: new Date(e.stoppedMs) } : {}),
      input: e.input,
      ...(e.output !== undefined ? { output: e.output } : {}),
    };
  }

  running(): ExecutionRecord[] {
    return this.executions.filter((e) => e.status === 'RUNNING');
  }

  private async run(record: ExecutionRecord): Promise<void> {
    try {
      const result = await runLocalExecution(record.machine, JSON.parse(record.input), {
        invoke: this.invoke,
        clock: this.clock,
        seed: this.options.seed ?? 0,
        definition: this.definition(record.machine),
        executionName: record.name,
        executionArn: record.arn,
        onTask: (key) => record.tasks.push(key),
        onTransitions: (n) => {
          record.transitions = n;
        },
      });
      record.status = result.status;
      if (result.status === 'SUCCEEDED') record.output = JSON.stringify(result.output ?? null);
      else Object.assign(record, { error: result.error, cause: result.cause });
    } catch (e) {
      record.status = 'FAILED';
      record.error = (e as Error).name;
      record.cause = (e as Error).message;
    }
    record.stoppedMs = this.clock.now();
    this.options.onFinished?.(record);
  }
}
