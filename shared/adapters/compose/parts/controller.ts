/** What only the controller takes: the Kubernetes watches and Lambda Invoke of the provisioner and disruption. */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { awsClientConfig } from '../../aws/client-config';
import { LambdaFunctionInvoker } from '../../aws/lambda/invoker';
import { KubeClusterWatch } from '../../kubernetes/watch';
import { part } from '../base';
import { clusterAccessPart } from './cluster';

/** Lambda Invoke waits for the provisioner or disruption round: their timeout is 90 s (infra/functions). */
const INVOKE_TIMEOUT_MS = 100_000;

export const watch = part('watch', async (b) => new KubeClusterWatch((await clusterAccessPart(b)).kc, { sleep: (ms, signal) => b.clock.sleep(ms, signal) }));

export const invoker = part(
  'invoker',
  (b) =>
    new LambdaFunctionInvoker({
      lambda: new LambdaClient(awsClientConfig(b.config.region, { requestTimeoutMs: INVOKE_TIMEOUT_MS })),
      functionNamePrefix: b.config.functionNamePrefix,
    }),
);
