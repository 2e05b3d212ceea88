/**
 * The doctor's checks in order (./checks.ts), with clients of the identity and network it runs in: the operator's
 * machine (`nodewright doctor`), or the stack itself (the `doctor` function, `nodewright doctor --in-stack`), whose
 * role, access entry, RBAC group and VPC placement are the functions' own.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { awsClientConfig } from '../aws/client-config';
import { priceListEndpointRegion } from '../aws/pricing/price-list';
import { systemClock } from '../clock';
import { clusterAccess } from '../cluster-access';
import { KubeClusterClient } from '../kubernetes/cluster-client';
import {
  checkAccessEntries,
  checkCluster,
  checkConcurrency,
  checkDiscovery,
  checkKarpenterQueue,
  checkKubernetes,
  checkNodeClassRoles,
  checkNodeRole,
  checkPrices,
  checkQueue,
  type CheckResult,
  type DoctorTarget,
} from './checks';
import { checkNodeAccessEntry } from './node-access';
import { checkKarpenterController } from './karpenter-controller';

/** The functions as deployed with the default parameters: how many, and the concurrency they reserve. */
export interface Deployment {
  functions: number;
  reserved: number;
}

export async function runChecks(t: DoctorTarget, deployment: Deployment, now: () => number = () => systemClock.now()): Promise<CheckResult[]> {
  const cfg = awsClientConfig(t.region);
  const eks = new EKSClient(cfg);
  const { version, authenticationMode, ...cluster } = await checkCluster(eks, t);
  const results: CheckResult[] = [cluster, await checkAccessEntries(eks, t, deployment.functions), await checkNodeAccessEntry(eks, t, authenticationMode)];
  // One DescribeCluster and token provider for every check that reads the cluster.
  let access: ReturnType<typeof clusterAccess> | undefined;
  const kc = async () => (await (access ??= clusterAccess(t.clusterName, t.region, systemClock))).kc;
  const kube = await checkKubernetes(async () => new KubeClusterClient(await kc()));
  results.push(kube.result);
  results.push(...(await checkDiscovery({ ec2: new EC2Client(cfg), ssm: new SSMClient(cfg) }, version ?? '1.31', kube.snapshot)));
  results.push(await checkNodeRole(new IAMClient(cfg), t));
  results.push(...checkNodeClassRoles(kube.snapshot, t));
  results.push(await checkPrices(new PricingClient(awsClientConfig(priceListEndpointRegion(t.region))), t));
  const sqs = new SQSClient(cfg);
  results.push(await checkQueue(sqs, t));
  results.push(await checkKarpenterQueue(sqs, t));
  results.push(await checkKarpenterController(kc, now()));
  results.push(await checkConcurrency(new LambdaClient(cfg), t, deployment.reserved));
  return results;
}
