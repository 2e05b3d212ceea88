export type WorkflowName = 'launch' | 'terminate' | 'disrupt';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

export interface ExecutionInfo {
  status: ExecutionStatus;
  /** Milliseconds since the epoch; set once the execution has stopped. */
  stoppedAt?: number;
}

export interface WorkflowStarter {
  /** Starts an execution; an already-started name is success (`alreadyStarted: true`), not an error. */
  start(machine: WorkflowName, name: string, input: unknown): Promise<{ executionArn: string; alreadyStarted: boolean }>;
  /** The execution's status (and when it stopped, if it has), undefined when there is none of that name (only the deployed starter knows). */
  status?(machine: WorkflowName, name: string): Promise<ExecutionInfo | undefined>;
}
