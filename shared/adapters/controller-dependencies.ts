/**
 * The controller's own composition root: only what it uses (the lease, the watches, deletions, Lambda Invoke),
 * so its bundle carries no EC2 client, no instance-type catalog and no scheduler — it runs all day at 192 MB.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ControllerDeps } from '../core/lifecycle/controller';
import { LambdaFunctionInvoker } from './aws/lambda/invoker';
import { awsClientConfig } from './aws/client-config';
import { SfnWorkflowStarter } from './aws/sfn';
import { DynamoStateStore } from './aws/state-store/dynamo';
import { systemClock } from './clock';
import { clusterAccess } from './cluster-access';
import { config } from './config';
import { KubeClusterClient } from './kubernetes/cluster-client';
import { KubeClusterWatch } from './kubernetes/watch';
import { karpenterMetrics, lifecycleLogger } from './lambda/handler';
import { composeMetrics } from './metrics/emf';
import { dependencyOverrides } from './overrides';

/** Lambda Invoke waits for the provisioner or disruption round: their timeout is 90 s (infra/functions). */
const INVOKE_TIMEOUT_MS = 100_000;

/** Per container (the simulator runs several in one process), for the overrides' generation. */
const built = new Map<string, { generation: number; deps: Promise<ControllerDependencies> }>();

/** The controller's dependencies, and a flush of its metrics (the handler calls it when the invocation ends). */
export type ControllerDependencies = ControllerDeps & { flushMetrics(): void };

async function build(): Promise<ControllerDependencies> {
  const cfg = config();
  const { overrides } = dependencyOverrides();
  const clock = overrides.clock ?? systemClock;
  const { kc } = await clusterAccess(cfg.clusterName, cfg.region, clock);
  // The controller runs ~14 minutes: its EMF documents go out every minute, not only at the end.
  const { metrics, flush } = composeMetrics({
    ...(cfg.karpenterMetrics === 'cloudwatch' ? { cloudwatch: karpenterMetrics } : {}), ...(overrides.metrics ? { extra: overrides.metrics } : {}),
    autoFlush: { everyMs: 60_000, now: () => clock.now() },
  });
  return {
    metrics,
    flushMetrics: flush,
    cluster: new KubeClusterClient(kc, { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal) }),
    workflows: new SfnWorkflowStarter({ sfn: new SFNClient(awsClientConfig(cfg.region)), stateMachineArns: cfg.stateMachineArns }),
    watch: new KubeClusterWatch(kc, { sleep: (ms, signal) => clock.sleep(ms, signal) }),
    invoker: new LambdaFunctionInvoker({ lambda: new LambdaClient(awsClientConfig(cfg.region, { requestTimeoutMs: INVOKE_TIMEOUT_MS })), functionNamePrefix: cfg.functionNamePrefix }),
    store: new DynamoStateStore({ client: DynamoDBDocumentClient.from(new DynamoDBClient(awsClientConfig(cfg.region))), tableName: cfg.stateTableName, clock }),
    clock,
    log: lifecycleLogger(),
  };
}

/** Forgets one container's dependencies (the simulator reclaims idle sandboxes). */
export function forgetControllerContainer(key: string): void {
  built.delete(key);
}

/** Built once per container (again after the simulator rebinds); a failed build is retried next time. */
export function controllerDependencies(): Promise<ControllerDependencies> {
  const { generation, overrides } = dependencyOverrides();
  const key = overrides.containerKey?.() ?? '';
  let entry = built.get(key);
  if (!entry || entry.generation !== generation) {
    if (entry) built.clear(); // a new world: every container of the previous one is gone
    const deps = build();
    built.set(key, (entry = { generation, deps }));
    deps.catch(() => { if (built.get(key)?.deps === deps) built.delete(key); });
  }
  return entry.deps;
}
