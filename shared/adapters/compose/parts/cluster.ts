/** The cluster: DescribeCluster once per container, an EKS token provider, the Kubernetes client. */
import { KubeClusterClient } from '../../kubernetes/cluster-client';
import { clusterAccess } from '../../cluster-access';
import { part } from '../base';
import { shadowCluster } from '../../shadow';
import { shadow } from './shadow';

export const clusterAccessPart = part('clusterAccess', (b) => clusterAccess(b.config.clusterName, b.config.region, b.clock));

export const cluster = part('cluster', async (b) => {
  const { kc } = await clusterAccessPart(b);
  const client = new KubeClusterClient(kc, {
    now: () => b.clock.now(),
    sleep: (ms, signal) => b.clock.sleep(ms, signal),
    ...(b.config.defaultSpread.length ? { defaultSpread: b.config.defaultSpread } : {}),
  });
  return b.config.shadow ? shadowCluster(client, await shadow(b)) : client;
});
