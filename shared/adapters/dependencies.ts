/**
 * The composition root: the real adapters behind the core's ports, built once per Lambda container from the
 * validated environment. Handlers reach it only through `deployedHandler` (lazy import), so tests that call
 * `createHandler(fakes)` never load the AWS SDK or the Kubernetes client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadCatalog } from '../catalog';
import type { LifecycleDeps, Planner } from '../core/lifecycle';
import type { Clock, ClusterWatch, FunctionInvoker } from '../core/ports';
import { LambdaFunctionInvoker } from './aws/lambda/invoker';
import { KubeClusterWatch } from './kubernetes/watch';
import { plannedClaimToNodeClaim, schedulingInputFromSnapshot } from '../core/provisioning/from-snapshot';
import { solve } from '../core/scheduling/solve';
import { Ec2CloudProvider } from './aws/ec2';
import { describeCluster, EksTokenProvider, type EksClusterInfo } from './aws/eks';
import { SfnWorkflowStarter } from './aws/sfn';
import { DynamoStateStore } from './aws/state-store';
import { systemClock } from './clock';
import { config, type Config } from './config';
import { KubeClusterClient, kubeConfigForEks } from './kubernetes';
import { lifecycleLogger, logger } from './lambda/handler';

export interface Dependencies extends LifecycleDeps {
  config: Config;
  planner: Planner;
  watch: ClusterWatch;
  invoker: FunctionInvoker;
}

export const planner: Planner = {
  schedulingInputFromSnapshot: (snapshot, instanceTypesByPool) => schedulingInputFromSnapshot(snapshot, instanceTypesByPool),
  solve,
  plannedClaimToNodeClaim,
};

/** What a caller may replace when building the dependencies (the simulator's virtual clock); production passes nothing. */
export interface DependencyOverrides {
  clock?: Clock;
}

export async function buildDependencies(cfg: Config, overrides: DependencyOverrides = {}): Promise<Dependencies> {
  const region = cfg.region;
  const clock = overrides.clock ?? systemClock;
  const eks = new EKSClient({ region });
  const clusterInfo: EksClusterInfo = await describeCluster(eks, cfg.clusterName);
  const tokens = new EksTokenProvider({ clusterName: cfg.clusterName, region, clock: () => clock.now() });
  const kc = kubeConfigForEks({ endpoint: clusterInfo.endpoint, caData: clusterInfo.certificateAuthority, tokenProvider: tokens, name: cfg.clusterName });
  const cluster = new KubeClusterClient(kc, { now: () => clock.now() });
  const watch = new KubeClusterWatch(kc);
  const invoker = new LambdaFunctionInvoker({ lambda: new LambdaClient({ region }), functionNamePrefix: cfg.functionNamePrefix });
  const store = new DynamoStateStore({ client: DynamoDBDocumentClient.from(new DynamoDBClient({ region })), tableName: cfg.stateTableName, clock });
  const cloud = new Ec2CloudProvider({
    ec2: new EC2Client({ region }),
    ssm: new SSMClient({ region }),
    clusterName: cfg.clusterName,
    region,
    stateStore: store,
    clock,
    catalog: loadCatalog(),
    cluster: clusterInfo,
    ...(cfg.nodeInstanceProfileName ? { defaultInstanceProfile: cfg.nodeInstanceProfileName } : {}),
    onFallback: (what, error) => logger.warn('using cached or bundled data', { what, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  });
  const workflows = new SfnWorkflowStarter({ sfn: new SFNClient({ region }), stateMachineArns: cfg.stateMachineArns });
  return { config: cfg, cluster, cloud, workflows, store, clock, log: lifecycleLogger(), planner, watch, invoker };
}

let built: Promise<Dependencies> | undefined;
let overrides: DependencyOverrides = {};

/** The container's dependencies, built on first use; a failed build is retried on the next invocation. */
export function dependencies(): Promise<Dependencies> {
  if (!built) {
    built = buildDependencies(config(), overrides);
    built.catch(() => {
      built = undefined;
    });
  }
  return built;
}

/**
 * Forgets the built dependencies; the next invocation builds them again with `next` (the simulator binds a
 * new world per run, with its virtual clock). A deployed Lambda never calls this.
 */
export function resetDependencies(next: DependencyOverrides = {}): void {
  overrides = next;
  built = undefined;
}
