/** Starts the `launch`, `terminate` and `disrupt` state machines. */
import { SFNClient } from '@aws-sdk/client-sfn';
import { awsClientConfig } from '../../aws/client-config';
import { SfnWorkflowStarter } from '../../aws/sfn';
import { part } from '../base';

export const workflows = part(
  'workflows',
  (b) => new SfnWorkflowStarter({ sfn: new SFNClient(awsClientConfig(b.config.region)), stateMachineArns: b.config.stateMachineArns }),
);
