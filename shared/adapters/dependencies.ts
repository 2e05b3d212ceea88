/**
 * The composition root: the real adapters behind the core's ports, built once per Lambda container from the
 * validated environment. Handlers reach it only through `deployedHandler` (lazy import), so tests that call
 * `createHandler(fakes)` never load the AWS SDK or the Kubernetes client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SFNClient } from '@aws-sdk/client-sfn';
import { IAMClient } from '@aws-sdk/client-iam';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadCatalog } from '../catalog';
import type { LifecycleDeps, Planner } from '../core/lifecycle';
import { plannedClaimToNodeClaim, schedulingInputFromSnapshot } from '../core/provisioning/from-snapshot';
import { solveCheapest } from '../core/scheduling/optimize/repack';
import { awsClientConfig } from './aws/client-config';
import { Ec2CloudProvider } from './aws/ec2';
import { InstanceProfiles } from './aws/iam/instance-profiles';
import { priceListEndpointRegion } from './aws/pricing/price-list';
import { PriceListRefresher } from './aws/pricing/refresher';
import { SfnWorkflowStarter } from './aws/sfn';
import { DynamoStateStore } from './aws/state-store';
import { systemClock } from './clock';
import { config, type Config } from './config';
import { clusterAccess } from './cluster-access';
import { KubeClusterClient } from './kubernetes';
import { setDependencyOverrides, type DependencyOverrides } from './overrides';
import { karpenterMetrics, lifecycleLogger, logger } from './lambda/handler';
import { composeMetrics } from './metrics/emf';

export interface Dependencies extends LifecycleDeps {
  config: Config;
  planner: Planner;
  /** The Price List API → state store refresh (garbage collection runs it). */
  prices: PriceListRefresher;
  /** Managed instance profiles (garbage collection deletes those of deleted node classes). */
  instanceProfiles: InstanceProfiles;
  /** This cluster's launch templates (garbage collection deletes those of deleted node classes and stale ones). */
  launchTemplates: { collect(liveClasses: ReadonlySet<string>): Promise<string[]> };
  /** Writes the invocation's metrics (deployedHandler calls it after every invocation). */
  flushMetrics(): void;
}

export const planner: Planner = {
  schedulingInputFromSnapshot: (snapshot, instanceTypesByPool) => schedulingInputFromSnapshot(snapshot, instanceTypesByPool),
  // Karpenter's scheduling, then re-packed toward the cheapest fleet (docs/scheduling.md).
  solve: solveCheapest,
  plannedClaimToNodeClaim,
};

export type { DependencyOverrides } from './overrides';

export async function buildDependencies(cfg: Config, overrides: DependencyOverrides = {}): Promise<Dependencies> {
  const region = cfg.region;
  const clock = overrides.clock ?? systemClock;
  const { info: clusterInfo, kc } = await clusterAccess(cfg.clusterName, region, clock);
  const cluster = new KubeClusterClient(kc, { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal) });
  const store = new DynamoStateStore({ client: DynamoDBDocumentClient.from(new DynamoDBClient(awsClientConfig(region))), tableName: cfg.stateTableName, clock });
  // IAM is global; the client's region only picks the partition's endpoint.
  const instanceProfiles = new InstanceProfiles({ iam: new IAMClient(awsClientConfig(region)), clusterName: cfg.clusterName, region, now: () => clock.now() });
  const cloud = new Ec2CloudProvider({
    ec2: new EC2Client(awsClientConfig(region)),
    ssm: new SSMClient(awsClientConfig(region)),
    clusterName: cfg.clusterName,
    region,
    stateStore: store,
    clock,
    catalog: loadCatalog(),
    cluster: clusterInfo,
    ...(cfg.nodeInstanceProfileName ? { defaultInstanceProfile: cfg.nodeInstanceProfileName } : {}),
    instanceProfiles,
    onFallback: (what, error) => logger.warn('using cached or bundled data', { what, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  });
  const workflows = new SfnWorkflowStarter({ sfn: new SFNClient(awsClientConfig(region)), stateMachineArns: cfg.stateMachineArns });
  const prices = new PriceListRefresher({ pricing: new PricingClient(awsClientConfig(priceListEndpointRegion(region))), region, store, now: () => clock.now() });
  const launchTemplates = { collect: (live: ReadonlySet<string>) => cloud.collectLaunchTemplates(live) };
  // Karpenter's metrics go to CloudWatch only when asked for (each series is a billed custom metric).
  const { metrics, flush: flushMetrics } = composeMetrics({
    ...(cfg.karpenterMetrics === 'cloudwatch' ? { cloudwatch: karpenterMetrics } : {}), ...(overrides.metrics ? { extra: overrides.metrics } : {}),
  });
  return { config: cfg, cluster, cloud, workflows, store, clock, log: lifecycleLogger(), metrics, flushMetrics, planner, prices, instanceProfiles, launchTemplates };
}

const built = new Map<string, Promise<Dependencies>>();
let overrides: DependencyOverrides = {};

/** The container's dependencies, built on first use; a failed build is retried on the next invocation. */
export function dependencies(): Promise<Dependencies> {
  const key = overrides.containerKey?.() ?? '';
  let deps = built.get(key);
  if (!deps) {
    const building = buildDependencies(config(), overrides);
    built.set(key, (deps = building));
    building.catch(() => {
      if (built.get(key) === building) built.delete(key);
    });
  }
  return deps;
}

/** Forgets one container's dependencies (the simulator reclaims idle sandboxes). A deployed Lambda never calls this. */
export function forgetContainer(key: string): void {
  built.delete(key);
}

/**
 * Forgets the built dependencies; the next invocation builds them again with `next` (the simulator binds a
 * new world per run, with its virtual clock). A deployed Lambda never calls this.
 */
export function resetDependencies(next: DependencyOverrides = {}): void {
  overrides = next;
  built.clear();
  setDependencyOverrides(next);
}
