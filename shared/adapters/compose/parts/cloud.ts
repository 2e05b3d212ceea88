/**
 * EC2 as the core's CloudProvider (with SSM for AMIs, IAM for managed instance profiles and the bundled
 * instance-type catalog), and what garbage collection cleans up with it. Only the functions that launch,
 * list or describe instances carry this part, and with it the catalog.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import { loadCatalog } from '../../../catalog';
import { awsClientConfig } from '../../aws/client-config';
import { Ec2CloudProvider } from '../../aws/ec2';
import { tagOwnedInstance } from '../../aws/ec2/instances';
import { InstanceProfiles } from '../../aws/iam/instance-profiles';
import { logger } from '../../lambda/handler';
import { part } from '../base';
import { shadowCloud } from '../../shadow';
import { shadow } from './shadow';
import { clusterAccessPart } from './cluster';
import { store } from './store';

/** Managed instance profiles (garbage collection deletes those of deleted node classes). */
export const instanceProfiles = part(
  'instanceProfiles',
  (b) =>
    // IAM is global; the client's region only picks the partition's endpoint.
    new InstanceProfiles({
      iam: new IAMClient(awsClientConfig(b.config.region)),
      clusterName: b.config.clusterName,
      region: b.config.region,
      now: () => b.clock.now(),
      ...(b.config.nodeRoleName ? { nodeRoleName: b.config.nodeRoleName } : {}),
      readOnly: b.config.shadow,
    }),
);

export const cloud = part('cloud', async (b) => {
  const cfg = b.config;
  const [{ info }, stateStore, profiles] = await Promise.all([clusterAccessPart(b), store(b), instanceProfiles(b)]);
  const provider = new Ec2CloudProvider({
    ec2: new EC2Client(awsClientConfig(cfg.region)),
    ssm: new SSMClient(awsClientConfig(cfg.region)),
    clusterName: cfg.clusterName,
    region: cfg.region,
    stateStore,
    clock: b.clock,
    catalog: loadCatalog(),
    cluster: info,
    ...(cfg.nodeInstanceProfileName ? { defaultInstanceProfile: cfg.nodeInstanceProfileName } : {}),
    instanceProfiles: profiles,
    onFallback: (what, error) =>
      logger.warn('using cached or bundled data', { what, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  });
  return cfg.shadow ? shadowCloud(provider, await shadow(b)) : provider;
});

/**
 * Only CloudProvider.tagInstance, for CheckRegistration (Karpenter's tagging controller): an EC2 client and no
 * catalog, so the function that registers nodes stays small.
 */
export const instanceTagger = part('instanceTagger', async (b) => {
  const ec2 = new EC2Client(awsClientConfig(b.config.region));
  const tagger = { tagInstance: (providerID: string, tags: Record<string, string>) => tagOwnedInstance(ec2, b.config.clusterName, providerID, tags) };
  return b.config.shadow ? shadowCloud(tagger, await shadow(b)) : tagger;
});

/** This cluster's launch templates (garbage collection deletes those of deleted node classes and stale ones). */
export const launchTemplates = part('launchTemplates', async (b) => {
  const provider = await cloud(b);
  // Shadow mode deletes nothing.
  if (b.config.shadow) return { collect: async (_live: ReadonlySet<string>): Promise<string[]> => [] };
  return { collect: (live: ReadonlySet<string>) => provider.collectLaunchTemplates(live) };
});
