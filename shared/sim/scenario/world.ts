/**
 * One simulated world: virtual clock, EC2, the fake API server over HTTPS on 127.0.0.1, the state table, Step
 * Functions, the interruption queue and the kube-side controllers, with the production functions bound to it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { loadCatalog } from '../../catalog';
import type { CatalogEntry } from '../../core/instance-types/types';
import { VirtualClock } from '../clock';
import { DynamoTable } from '../aws/dynamo-table';
import { Ec2World } from '../aws/ec2-world';
import { installSimulatedAws, SIMULATED_AWS_CLIENTS, type SimulatedAws } from '../aws/services';
import { startClusterControllers, type ClusterControllerOptions } from '../cluster';
import { newVolumeStats, type VolumeStats } from '../cluster/attach-detach';
import { NodeHealth } from '../cluster/node-health';
import { isDaemonSetPod, kubeTypes } from '../cluster/kube-objects';
import { FakeKubeApi, type RunningKubeServer } from '../kube/server';
import { clusterRoleRules } from '../kube/rbac';
import { committedTestTls, type TlsMaterial } from '../kube/tls';
import { REPO_ROOT } from '../runtime/functions';
import { HttpInFlight } from '../runtime/http-inflight';
import { FaultPlan, kubeApiFault, type FaultSpec } from '../faults';
import { installSdkBehaviour } from '../aws/sdk-behaviour';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { IAMClient } from '@aws-sdk/client-iam';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WatchDelivery } from '../runtime/watch-delivery';
import { defaultQueueName } from '../../adapters/config';
import { bindProduction, simulatedEnv, type CapturedLog, type ProductionBinding, type ProductionEnv } from '../runtime/production';
import { SimulatedStepFunctions } from '../runtime/step-functions';
import { SimulatedQueue, startSchedules, type InvocationRecord } from '../runtime/triggers';

export interface WorldOptions {
  clusterName: string;
  region: string;
  zones: string[];
  seed: number;
  nodeStartupSeconds: number;
  /** Virtual epoch milliseconds at t=0. */
  startMs?: number;
  catalog?: readonly CatalogEntry[];
  tls?: TlsMaterial;
  /** Port of the fake API server on 127.0.0.1 (default: an ephemeral one). */
  port?: number;
  /** Tags the simulated subnets and security groups carry besides the cluster's discovery tag. */
  discoveryTags?: Record<string, string>;
  onLog?: (log: CapturedLog) => void;
  /** Faults injected on virtual time (shared/sim/faults.ts). */
  faults?: FaultSpec[];
  /** The deployment's `metrics` parameter (KARPENTER_METRICS); default off. */
  metrics?: 'cloudwatch' | 'off';
  /** The deployment's `controllerMemorySize` parameter (MB); default serverless.yml's. */
  controllerMemorySize?: number;
  /** The deployment's `featureGates` parameter (FEATURE_GATES); default serverless.yml's. */
  featureGates?: string;
  /** The deployment's `schedulerConfig` parameter (SCHEDULER_CONFIG). */
  schedulerConfig?: string;
  /** The deployment's `shadow` parameter: nodewright beside another autoscaler, acting on nothing. */
  shadow?: boolean;
  /** The deployment's `nodeRoleName` parameter (NODE_ROLE_NAME); default `KarpenterNodeRole-<cluster>`. */
  nodeRoleName?: string;
}

export interface SimWorld {
  faults: FaultPlan;
  clock: VirtualClock;
  ec2: Ec2World;
  api: FakeKubeApi;
  server: RunningKubeServer;
  stepFunctions: SimulatedStepFunctions;
  queue: SimulatedQueue;
  production: ProductionBinding;
  invocations: InvocationRecord[];
  lostPods: { t: number; pod: string; node: string }[];
  /** The simulated attach/detach controller's counts (PersistentVolumeClaim volumes). */
  volumes: VolumeStats;
  /** Unhealthy nodes (scenario `unhealthy` events) and what EC2 reboots do to the nodes (cluster/node-health.ts). */
  nodeHealth: NodeHealth;
  close(): Promise<void>;
}

/** Only one world may be bound to the production modules of a process at a time. */
let active: SimWorld | undefined;

class SimulationBusyError extends Error {
  override readonly name = 'SimulationBusyError' as const;
}

/** The deployed queue's settings (infra/resources/interruption.yml); SQS's defaults where one is not set. */
function queueSettings(): { visibilityTimeoutSeconds: number; maxReceiveCount: number; retentionSeconds: number } {
  const defaults = { visibilityTimeoutSeconds: 30, maxReceiveCount: Number.POSITIVE_INFINITY, retentionSeconds: 345_600 };
  try {
    const doc = parse(readFileSync(resolve(REPO_ROOT, 'infra/resources/interruption.yml'), 'utf8')) as {
      Resources: {
        InterruptionQueue: { Properties: { VisibilityTimeout?: number; MessageRetentionPeriod?: number; RedrivePolicy?: { maxReceiveCount?: number } } };
      };
    };
    const p = doc.Resources.InterruptionQueue.Properties;
    return {
      visibilityTimeoutSeconds: p.VisibilityTimeout ?? defaults.visibilityTimeoutSeconds,
      maxReceiveCount: p.RedrivePolicy?.maxReceiveCount ?? defaults.maxReceiveCount,
      retentionSeconds: p.MessageRetentionPeriod ?? defaults.retentionSeconds,
    };
  } catch {
    return defaults;
  }
}

/** The functions' environment and deploy parameters, as a deploy with the world's options would set them. */
function productionEnv(opts: WorldOptions): ProductionEnv {
  return {
    ...simulatedEnv(opts.clusterName, opts.region),
    ...(opts.metrics ? { karpenterMetrics: opts.metrics } : {}),
    ...(opts.featureGates ? { featureGates: opts.featureGates } : {}),
    ...(opts.schedulerConfig ? { schedulerConfig: opts.schedulerConfig } : {}),
    ...(opts.shadow ? { shadow: true } : {}),
    ...(opts.nodeRoleName ? { nodeRoleName: opts.nodeRoleName } : {}),
    ...(opts.controllerMemorySize ? { params: { controllerMemorySize: opts.controllerMemorySize } } : {}),
  };
}

export async function createWorld(opts: WorldOptions): Promise<SimWorld> {
  if (active) throw new SimulationBusyError('another simulation is running in this process; run scenarios one after another');
  const clock = new VirtualClock(opts.startMs ?? Date.UTC(2025, 0, 6, 9, 0, 0));
  const ec2 = new Ec2World({
    region: opts.region,
    zones: opts.zones,
    clusterName: opts.clusterName,
    seed: opts.seed,
    clock,
    catalog: opts.catalog ?? loadCatalog(),
    ...(opts.discoveryTags ? { discoveryTags: opts.discoveryTags } : {}),
  });
  const { api, server } = await startKubeApi(opts, clock);
  const env = productionEnv(opts);
  const stopHttp = holdTimeForHttp(clock, api);
  const invocations: InvocationRecord[] = [];
  const lostPods: SimWorld['lostPods'] = [];
  let production: ProductionBinding;
  try {
    production = await bindProduction(clock, env, opts.onLog ?? (() => undefined));
  } catch (e) {
    stopHttp();
    await server.close();
    throw e;
  }
  const stepFunctions = new SimulatedStepFunctions(clock, env.stateMachineArns, (key, payload) => production.invoke(key, payload), { seed: opts.seed });
  const sim = simulatedAws(opts, env, clock, ec2, server, stepFunctions, production);
  const restoreAws = installSimulatedAws(() => sim);
  const faults = new FaultPlan(opts.faults ?? [], opts.seed, () => clock.elapsedSeconds());
  production.faults = faults;
  api.faultHook = () => kubeApiFault(faults.check('kube-api'));
  ec2.describeLagSeconds = () => faults.lagSeconds('ec2');
  api.pace = production.kubeCost.pace; // the cost model delivers the functions' answers (runtime/kube-cost.ts)
  api.holdTimer = (ms, fn) => clock.at(clock.now() + ms, fn);
  const removeAwsFaults = installAwsBehaviour(clock, faults, opts.seed);
  const unwatchAws = production.meter.watchAwsClients(SIMULATED_AWS_CLIENTS);
  const record = (r: InvocationRecord) => invocations.push(r);
  const queue = interruptionQueue(opts, clock, production, faults, record);
  sim.queue = queue;
  const stopEvents = ec2.onEvent((e) => queue.sendEvent(e));
  const volumes = newVolumeStats();
  const nodeHealth = new NodeHealth(clock, ec2, api.store);
  const stopControllers = startClusterControllers(clock, ec2, api.store, {
    startupSeconds: opts.nodeStartupSeconds,
    volumeStats: volumes,
    nodeHealth,
    ...lostPodRecorder(clock, api, lostPods),
  });
  const stopSchedules = startSchedules(clock, production.functions, production.invoke, opts.region, record);
  const world: SimWorld = {
    clock,
    ec2,
    api,
    server,
    stepFunctions,
    queue,
    production,
    invocations,
    lostPods,
    volumes,
    nodeHealth,
    faults,
    close: async () => {
      clock.halt();
      stopSchedules();
      stopControllers();
      stopEvents();
      unwatchAws();
      removeAwsFaults();
      restoreAws();
      production.restore();
      await server.close();
      stopHttp();
      if (active === world) active = undefined;
    },
  };
  active = world;
  return world;
}

/**
 * Virtual time does not move while a function's request or its answer is in flight, nor while watch events are being
 * delivered; an answer the server holds back (paced by the cost model, an injected hang) lets time move until it is written.
 */
function holdTimeForHttp(clock: VirtualClock, api: FakeKubeApi): () => void {
  const http = new HttpInFlight().start();
  const watchEvents = new WatchDelivery(api).start();
  const removeProbe = clock.addBusyProbe(
    () => (http.count() > 0 ? `${http.count()} HTTP request(s) in flight` : watchEvents.busy()),
    () => http.completed(),
  );
  api.onHold = (port) => http.release(port);
  api.onAnswer = (port) => http.resume(port);
  return () => {
    removeProbe();
    http.stop();
    watchEvents.stop();
  };
}

/** The fake API server over HTTPS on 127.0.0.1, with the functions' ClusterRole. */
async function startKubeApi(opts: WorldOptions, clock: VirtualClock): Promise<{ api: FakeKubeApi; server: RunningKubeServer }> {
  // No bearer token required: nodewright authenticates with an EKS token (STS presigned), which the fake
  // API server cannot check; kubectl in interactive mode connects with the written kubeconfig.
  const api = new FakeKubeApi({ clock: () => clock.now() });
  // The functions get exactly the ClusterRole users apply (infra/kubernetes/rbac.yaml): a missing verb fails here.
  api.rbacRules = clusterRoleRules(resolve(REPO_ROOT, 'infra/kubernetes/rbac.yaml'));
  const server = await api.listen({ tls: true, tlsMaterial: opts.tls ?? committedTestTls(), ...(opts.port ? { port: opts.port } : {}) });
  return { api, server };
}

/** What the AWS mocks answer from: EC2, the state table, the cluster, Step Functions, the functions' roles, Lambda Invoke. */
function simulatedAws(
  opts: WorldOptions,
  env: ProductionEnv,
  clock: VirtualClock,
  ec2: Ec2World,
  server: RunningKubeServer,
  stepFunctions: SimulatedStepFunctions,
  production: ProductionBinding,
): SimulatedAws {
  return {
    world: ec2,
    table: new DynamoTable('pk', 'sk', production.meter),
    cluster: { name: opts.clusterName, endpoint: server.url, caData: server.caData ?? '', version: '1.31' },
    stepFunctions,
    functionRoles: production.functions.map((f) => `nodewright-sim-${f.key[0].toUpperCase()}${f.key.slice(1)}Role-SIM`),
    functionConcurrency: Object.fromEntries(production.functions.map((f) => [`${env.functionNamePrefix}${f.key}`, f.reservedConcurrency])),
    // Lambda Invoke: the invoked function runs as its own activity, as it would in its own container.
    invokeFunction: (name, payload) => {
      const key = name.startsWith(env.functionNamePrefix) ? name.slice(env.functionNamePrefix.length) : name;
      return clock.track(`invoke:${key}`, () => production.invoke(key, payload));
    },
  };
}

/** SDK behaviour (latency, throttling, injected faults) on every AWS client the functions use. Returns remove. */
function installAwsBehaviour(clock: VirtualClock, faults: FaultPlan, seed: number): () => void {
  return installSdkBehaviour({
    clock,
    plan: faults,
    seed,
    clients: [
      { service: 'ec2', cls: EC2Client },
      { service: 'sfn', cls: SFNClient },
      { service: 'dynamodb', cls: DynamoDBDocumentClient },
      { service: 'lambda-invoke', cls: LambdaClient },
      { service: 'ssm', cls: SSMClient },
      { service: 'eks', cls: EKSClient },
      { service: 'pricing', cls: PricingClient },
      { service: 'iam', cls: IAMClient },
    ],
  });
}

/** The interruption queue feeding the function subscribed to SQS, with the deployed queue's settings. */
function interruptionQueue(
  opts: WorldOptions,
  clock: VirtualClock,
  production: ProductionBinding,
  faults: FaultPlan,
  record: (r: InvocationRecord) => void,
): SimulatedQueue {
  const queueFn = production.functions.find((f) => f.sqs);
  const queue = new SimulatedQueue(
    clock,
    production.invoke,
    {
      functionKey: queueFn?.key ?? 'interruption',
      queueArn: `arn:aws:sqs:${opts.region}:000000000000:${defaultQueueName(opts.clusterName)}`,
      region: opts.region,
      ...queueSettings(),
      ...queueFn?.sqsTrigger,
    },
    record,
  );
  queue.duplicates = () => faults.check('sqs') === 'duplicate';
  return queue;
}

/** Records pods lost with their node (SimWorld.lostPods), once per pod and node. */
function lostPodRecorder(clock: VirtualClock, api: FakeKubeApi, lostPods: SimWorld['lostPods']): Pick<ClusterControllerOptions, 'onNodeLost' | 'onPodLost'> {
  return {
    // Pods still bound when their instance shuts down die with it; pod GC later removes what is left.
    onNodeLost: (_i, node) => {
      // The pods bound to that node, from the store's index on spec.nodeName (not a scan of every pod per node lost).
      for (const p of api.store.scanWhere(kubeTypes(api.store).pod, ['spec', 'nodeName'], node)) {
        const name = `${p.metadata.namespace}/${p.metadata.name}`;
        if (!isDaemonSetPod(p) && !lostPods.some((l) => l.pod === name && l.node === node)) lostPods.push({ t: clock.elapsedSeconds(), pod: name, node });
      }
    },
    onPodLost: (pod, node) => {
      if (!lostPods.some((l) => l.pod === pod && l.node === node)) lostPods.push({ t: clock.elapsedSeconds(), pod, node });
    },
  };
}
