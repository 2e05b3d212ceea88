export type WorkflowName = 'launch' | 'terminate' | 'disrupt';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

export interface WorkflowStarter {
  /** Starts an execution; an already-started name is success (`alreadyStarted: true`), not an error. */
  start(machine: WorkflowName, name: string, input: unknown): Promise<{ executionArn: string; alreadyStarted: boolean }>;
  /** The execution's status, undefined when there is none of that name (only the deployed starter knows). */
  status?(machine: WorkflowName, name: string): Promise<ExecutionStatus | undefined>;
}
