/** The EKS cluster as every function reaches it: DescribeCluster once, a token provider, one KubeConfig. */
import { EKSClient } from '@aws-sdk/client-eks';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Clock } from '../core/ports';
import { awsClientConfig } from './aws/client-config';
import { describeCluster, EksTokenProvider, type EksClusterInfo } from './aws/eks';
import { kubeConfigForEks } from './kubernetes/config';

export async function clusterAccess(clusterName: string, region: string, clock: Clock): Promise<{ info: EksClusterInfo; kc: KubeConfig }> {
  const info = await describeCluster(new EKSClient(awsClientConfig(region)), clusterName);
  const tokens = new EksTokenProvider({ clusterName, region, clock: () => clock.now() });
  const kc = kubeConfigForEks({ endpoint: info.endpoint, caData: info.certificateAuthority, tokenProvider: tokens, name: clusterName });
  return { info, kc };
}
