/** A WorkflowStarter that runs started executions locally (or only records them), with AWS's name semantics. */
import type { WorkflowName, WorkflowStarter } from '../../core/ports';
import { runLocalExecution, type LocalExecution, type LocalRunOptions } from './runner';

export interface StartedExecution {
  machine: WorkflowName;
  name: string;
  input: unknown;
  /** Set when `run` is on and the execution finished. */
  result?: Promise<LocalExecution>;
}

export class LocalWorkflowStarter implements WorkflowStarter {
  readonly started: StartedExecution[] = [];

  /** `options` undefined = record only; otherwise each start runs the real ASL with these options. */
  constructor(private readonly options?: Omit<LocalRunOptions, 'executionName' | 'definition'>) {}

  async start(machine: WorkflowName, name: string, input: unknown): Promise<{ executionArn: string; alreadyStarted: boolean }> {
    const executionArn = `arn:aws:states:local:000000000000:execution:${machine}:${name}`;
    if (this.started.some((s) => s.machine === machine && s.name === name)) return { executionArn, alreadyStarted: true };
    const record: StartedExecution = { machine, name, input: JSON.parse(JSON.stringify(input ?? {})) };
    if (this.options) record.result = runLocalExecution(machine, record.input, { ...this.options, executionName: name });
    this.started.push(record);
    return { executionArn, alreadyStarted: false };
  }

  /** Waits for every execution started so far (and those they start). */
  async settle(): Promise<LocalExecution[]> {
    let seen = -1;
    while (seen !== this.started.length) {
      seen = this.started.length;
      await Promise.all(this.started.map((s) => s.result));
    }
    return Promise.all(this.started.filter((s) => s.result).map((s) => s.result as Promise<LocalExecution>));
  }
}
