export { SfnWorkflowStarter, StateMachineUnknownError, executionArnFor, type SfnWorkflowStarterDeps } from './workflow-starter';
export { sanitizeExecutionName, ExecutionNameInvalidError, MAX_EXECUTION_NAME_LENGTH } from './execution-name';
