export type WorkflowName = 'launch' | 'terminate' | 'disrupt';

export interface WorkflowStarter {
  /** Starts an execution; an already-started name is success (`alreadyStarted: true`), not an error. */
  start(machine: WorkflowName, name: string, input: unknown): Promise<{ executionArn: string; alreadyStarted: boolean }>;
}
