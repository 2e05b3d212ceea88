export { SfnWorkflowStarter, StateMachineUnknownError } from './workflow-starter';
export { sanitizeExecutionName } from './execution-name';
