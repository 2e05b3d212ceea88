/** Starts the `launch`, `terminate` and `disrupt` state machines. */
import { SFNClient } from '@aws-sdk/client-sfn';
import { awsClientConfig } from '../../aws/client-config';
import { SfnWorkflowStarter } from '../../aws/sfn';
import { part } from '../base';
import { shadowWorkflows } from '../../shadow';
import { shadow } from './shadow';

export const workflows = part('workflows', async (b) => {
  const starter = new SfnWorkflowStarter({ sfn: new SFNClient(awsClientConfig(b.config.region)), stateMachineArns: b.config.stateMachineArns });
  return b.config.shadow ? shadowWorkflows(starter, await shadow(b)) : starter;
});
