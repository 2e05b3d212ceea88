/**
 * Pointing the production composition root at the simulated world: the environment serverless.yml gives the
 * functions, the virtual clock (setDependencyOverrides({clock})), the Powertools logger's output captured as events, and
 * each function invoked through its deployed `handler` (middy + Powertools + composition root) with a Lambda
 * context. Everything is undone by `restore()`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { defaultQueueName, resetConfig } from '../../adapters/config';
import { forgetContainer } from '../../adapters/compose/container';
import { setDependencyOverrides } from '../../adapters/overrides';
import { karpenterMetrics, logger, metrics } from '../../adapters/lambda/handler';
import { PrometheusMetricsRecorder } from '../../adapters/metrics/prometheus';
import type { Clock } from '../../core/ports';
import type { VirtualClock } from '../clock';
import { ComputeCharge } from './compute';
import type { FaultPlan } from '../faults';
import { deployedFunctions, deployParams, loadHandler, type DeployedFunction, type DeployParams, type LambdaHandler } from './functions';
import { COST_MODEL, cpuMs } from './cost';
import { KubeCost } from './kube-cost';
import { BILLING_ASSUMPTIONS, Meter } from './metering';

export interface CapturedLog {
  t: number;
  level: string;
  message: string;
  fields: Record<string, unknown>;
  /**
   * A deterministic order for lines written at the same time: the writing activity's start time and name,
   * then the line's position within that activity (concurrent activities interleave differently per run).
   */
  order: [number, string, number];
}

/** Powertools keys that describe the invocation, not the event. */
const ENVELOPE_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'sampling_rate',
]);

export interface ProductionEnv {
  clusterName: string;
  region: string;
  stateTableName: string;
  stateMachineArns: { launch: string; terminate: string; disrupt: string };
  interruptionQueueUrl: string;
  /** Deployed function names are `<prefix><function key>`. */
  functionNamePrefix: string;
  /** KARPENTER_METRICS: whether the functions publish Karpenter's metrics to CloudWatch (billed per series). */
  karpenterMetrics?: 'cloudwatch' | 'off';
  /** FEATURE_GATES (the deployment's `featureGates` parameter), Karpenter's syntax. */
  featureGates?: string;
  /** SCHEDULER_CONFIG (the `schedulerConfig` parameter). */
  schedulerConfig?: string;
  /** NODEWRIGHT_SHADOW (the `shadow` parameter): read and decide, act on nothing. */
  shadow?: boolean;
  /** NODE_ROLE_NAME (the `nodeRoleName` parameter): the one role the functions may pass to EC2. */
  nodeRoleName?: string;
  /** Deployment parameters set at deploy time (`--param`), over serverless.yml's defaults: e.g. controllerMemorySize. */
  params?: DeployParams;
}

export function simulatedEnv(clusterName: string, region: string): ProductionEnv {
  const arn = (m: string) => `arn:aws:states:${region}:000000000000:stateMachine:nodewright-sim-${m}`;
  return {
    clusterName,
    region,
    stateTableName: 'nodewright-sim-state',
    stateMachineArns: { launch: arn('launch'), terminate: arn('terminate'), disrupt: arn('disrupt') },
    interruptionQueueUrl: `https://sqs.${region}.amazonaws.com/000000000000/${defaultQueueName(clusterName)}`,
    functionNamePrefix: 'nodewright-sim-',
  };
}

export interface ProductionBinding {
  functions: DeployedFunction[];
  invoke(functionKey: string, event: unknown): Promise<unknown>;
  /** What every invocation used, for the controller's bill (metering.ts). */
  meter: Meter;
  /** The cost model's Kubernetes side: the fake API server's `pace` (kube-cost.ts). */
  kubeCost: KubeCost;
  /** The functions' own long computations, charged on virtual time (compute.ts). */
  compute: ComputeCharge;
  /** Karpenter's metrics recorded by the functions (beside the EMF documents the Meter counts). */
  prometheus: PrometheusMetricsRecorder;
  /** Fault injection for invocations (`lambda:<key>` crash / timeout); set by the world. */
  faults?: FaultPlan;
  restore(): void;
}

/** A Lambda runtime that died (out of memory, a crash) reports this to Step Functions and to its invoker. */
class FunctionCrashedError extends Error {
  override readonly name = 'Runtime.ExitError' as const;
}

type Patchable = { console: unknown; disabled?: boolean };

/** A function that ran past its timeout; `name` is the error Lambda reports to Step Functions. */
class FunctionTimedOutError extends Error {
  override readonly name = 'Sandbox.Timedout' as const;
}

/**
 * Points the composition root at a world: it forgets its per-process caches (config, dependencies, each
 * handler's built instance) and builds the next dependencies with `clock`; undefined restores the production
 * default (the system clock).
 */
function resetCompositionRoot(clock: Clock | undefined, containerKey?: () => string | undefined, prometheus?: PrometheusMetricsRecorder): void {
  setDependencyOverrides(clock ? { clock, ...(containerKey ? { containerKey } : {}), ...(prometheus ? { metrics: prometheus } : {}) } : {});
  resetConfig();
}

/** serverless.yml's default `featureGates` parameter. */
const DEFAULT_FEATURE_GATES = 'SpotToSpotConsolidation=false,PodDeletionCostManagement=false';

/** The environment serverless.yml gives every function, for this world; returns the restore. */
function setFunctionEnvironment(env: ProductionEnv): () => void {
  const savedEnv = { ...process.env };
  Object.assign(process.env, {
    CLUSTER_NAME: env.clusterName,
    AWS_REGION: env.region,
    AWS_DEFAULT_REGION: env.region,
    STATE_TABLE_NAME: env.stateTableName,
    LAUNCH_STATE_MACHINE_ARN: env.stateMachineArns.launch,
    TERMINATE_STATE_MACHINE_ARN: env.stateMachineArns.terminate,
    DISRUPT_STATE_MACHINE_ARN: env.stateMachineArns.disrupt,
    INTERRUPTION_QUEUE_URL: env.interruptionQueueUrl,
    FUNCTION_NAME_PREFIX: env.functionNamePrefix,
    KARPENTER_METRICS: env.karpenterMetrics ?? 'off',
    FEATURE_GATES: env.featureGates ?? DEFAULT_FEATURE_GATES,
    NODEWRIGHT_SHADOW: env.shadow ? 'true' : 'false',
    SCHEDULER_CONFIG: env.schedulerConfig ?? '',
    NODE_ROLE_NAME: env.nodeRoleName ?? `KarpenterNodeRole-${env.clusterName}`,
    AWS_ACCESS_KEY_ID: 'AKIASIMULATED0000000',
    AWS_SECRET_ACCESS_KEY: 'simulated-secret-access-key',
    POWERTOOLS_SERVICE_NAME: 'nodewright',
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  return () => {
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  };
}

/**
 * The Powertools logger's lines become the world's events (and the Meter's log bytes); its EMF metrics are
 * counted by the Meter instead of printed. Returns the restore.
 */
function captureTelemetry(clock: VirtualClock, meter: Meter, invocation: AsyncLocalStorage<string>, onLog: (log: CapturedLog) => void): () => void {
  const loggerPatch = logger as unknown as Patchable;
  const metricsPatch = metrics as unknown as Patchable;
  const karpenterPatch = karpenterMetrics as unknown as Patchable;
  const savedLoggerConsole = loggerPatch.console;
  const savedMetricsDisabled = metricsPatch.disabled;
  const savedKarpenterDisabled = karpenterPatch.disabled;
  const orderOf = (): [number, string, number] => {
    const a = clock.current();
    return a ? [a.startedMs, a.name, ++a.lines] : [Number.MAX_SAFE_INTEGER, '', 0];
  };
  const capture = (text: unknown) => {
    try {
      const record = JSON.parse(String(text)) as Record<string, unknown>;
      const fn = invocation.getStore();
      // A line from no invocation of this binding comes from an earlier world's function still winding down
      // (e.g. a controller whose watches just lost their server): it is not part of this run.
      if (fn === undefined) return;
      const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !ENVELOPE_KEYS.has(k) && k !== 'function'));
      const fields: Record<string, unknown> = fn ? { function: fn, ...rest } : rest;
      meter.logLine({ level: record.level, message: record.message, ...fields });
      onLog({ t: clock.elapsedSeconds(), level: String(record.level ?? 'INFO'), message: String(record.message ?? ''), fields, order: orderOf() });
    } catch {
      meter.logLine(String(text));
      onLog({ t: clock.elapsedSeconds(), level: 'INFO', message: String(text), fields: {}, order: orderOf() });
    }
  };
  const unwatchMetrics = meter.watchMetrics(metrics);
  const unwatchKarpenter = meter.watchMetrics(karpenterMetrics);
  loggerPatch.console = { info: capture, warn: capture, error: capture, debug: capture, log: capture, trace: capture };
  metricsPatch.disabled = true;
  karpenterPatch.disabled = true;
  return () => {
    unwatchMetrics();
    unwatchKarpenter();
    loggerPatch.console = savedLoggerConsole;
    (metrics as unknown as { clearMetrics?: () => void }).clearMetrics?.();
    metricsPatch.disabled = savedMetricsDisabled;
    (karpenterMetrics as unknown as { clearMetrics?: () => void }).clearMetrics?.();
    karpenterPatch.disabled = savedKarpenterDisabled;
  };
}

/** The Lambda context of one invocation; its remaining time is on virtual time. */
function lambdaContext(fn: DeployedFunction, region: string, requestId: string, remainingMs: () => number): Context {
  const functionKey = fn.key;
  return {
    functionName: `nodewright-sim-${functionKey}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:nodewright-sim-${functionKey}`,
    memoryLimitInMB: String(fn.memorySizeMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/nodewright-sim-${functionKey}`,
    logStreamName: 'simulated',
    callbackWaitsForEmptyEventLoop: false,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    // On virtual time. (The handlers' middy arms no early-timeout timer, so no real-time timer starts.)
    getRemainingTimeInMillis: remainingMs,
  } as Context;
}

/** Deterministic: from the activity (execution, schedule, queue), its own invocation count and the time. */
function requestIdOf(activity: string, functionKey: string, n: number, nowMs: number): string {
  const digest = createHash('sha256').update(`${activity}|${functionKey}|${n}|${nowMs}`).digest('hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
}

interface Invoker {
  clock: VirtualClock;
  compute: ComputeCharge;
  region: string;
  meter: Meter;
  invocation: AsyncLocalStorage<string>;
  functions: DeployedFunction[];
  faults: () => FaultPlan | undefined;
}

/** Invokes a deployed function as Lambda would: a sandbox (cold: INIT first), its timeout on virtual time, injected faults. */
function invoker(o: Invoker): (functionKey: string, event: unknown) => Promise<unknown> {
  const { clock, meter, functions } = o;
  const handlers = new Map<string, LambdaHandler>();
  let requests = 0;
  return async (functionKey, event) => {
    const fn = functions.find((f) => f.key === functionKey);
    if (!fn) throw new Error(`function "${functionKey}" is not declared in infra/functions`);
    let handler = handlers.get(functionKey);
    if (!handler) {
      handler = await loadHandler(fn);
      handlers.set(functionKey, handler);
    }
    const activity = clock.current();
    const n = activity ? ++activity.invocations : ++requests;
    let deadline = clock.now() + fn.timeoutSeconds * 1000;
    // The time left counts what the invocation has computed (its clock, compute.ts).
    const context = lambdaContext(fn, o.region, requestIdOf(activity?.name ?? 'none', functionKey, n, clock.now()), () =>
      Math.max(0, deadline - o.compute.now()),
    );
    // The function timeout is enforced here on virtual time (a timer, not a sleep, so the invocation still
    // counts as running).
    let cancel = () => {};
    const fault = o.faults()?.check(`lambda:${functionKey}`);
    try {
      return await meter.invocation(functionKey, async (cold, died) => {
        // A new sandbox first spends its INIT phase (module load; not part of the function's timeout).
        if (cold) {
          await clock.sleep(BILLING_ASSUMPTIONS.initMs);
          deadline = clock.now() + fn.timeoutSeconds * 1000;
        }
        const timedOut = new Promise<never>((_, reject) => {
          cancel = clock.at(deadline, () => reject(new FunctionTimedOutError(`Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`)));
        });
        // crash: the runtime dies before the handler does anything; timeout: the handler's effects happen, its answer is lost.
        if (fault === 'crash')
          throw new FunctionCrashedError(`RequestId: ${context.awsRequestId} Error: Runtime exited with error: signal: killed (injected fault)`);
        // The handler's own CPU (middy, Powertools, the use case) on the function's CPU share (cost.ts).
        const run = async () => {
          await clock.sleep(Math.ceil(cpuMs(COST_MODEL.invocationCpuMs * 1e6, fn.memorySizeMb))); // whole ms, as Date.now()
          const out = await handler(event, context);
          // The invocation ends once its last computation is done (a timeout may come first).
          const running = meter.running();
          const owed = running ? o.compute.owedMs(running) : 0;
          if (owed > 0) await clock.sleep(Math.ceil(owed));
          return out;
        };
        const out = await Promise.race([o.invocation.run(functionKey, run), timedOut, died]);
        if (fault === 'timeout') throw new FunctionTimedOutError(`Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds (injected fault)`);
        return out;
      });
    } finally {
      cancel();
    }
  };
}

export async function bindProduction(clock: VirtualClock, env: ProductionEnv, onLog: (log: CapturedLog) => void): Promise<ProductionBinding> {
  // Each simulated sandbox (container) builds its own dependencies, as a cold Lambda container does:
  // DescribeCluster, a new KubeConfig, empty caches.
  const functions = deployedFunctions(undefined, deployParams(env.params));
  const meter = new Meter(clock, (key) => functions.find((f) => f.key === key)?.memorySizeMb ?? 1024);
  const compute = new ComputeCharge(clock, meter);
  const kubeCost = new KubeCost(clock, meter, (r) => compute.commit(r)).start();
  meter.onReclaim = (sandbox) => {
    forgetContainer(sandbox);
  };
  // Karpenter's metrics of this world, as Prometheus would scrape them (`sim serve` → /metrics).
  const prometheus = new PrometheusMetricsRecorder();
  // The functions' clock: virtual time plus what their own long computations take (compute.ts).
  const functionClock: Clock = { now: () => compute.now(), sleep: (ms, signal) => compute.sleep(ms, signal) };
  resetCompositionRoot(functionClock, () => meter.sandboxKey(), prometheus);
  const restoreEnv = setFunctionEnvironment(env);
  // One shared Logger serves every simulated function (one process), so the function a line belongs to is
  // taken from the invocation it is written in, not from the logger's appended keys.
  const invocation = new AsyncLocalStorage<string>();
  const restoreTelemetry = captureTelemetry(clock, meter, invocation, onLog);
  const binding: ProductionBinding = {
    functions,
    invoke: invoker({ clock, compute, region: env.region, meter, invocation, functions, faults: () => binding.faults }),
    meter,
    kubeCost,
    compute,
    prometheus,
    restore: () => {
      kubeCost.stop();
      restoreTelemetry();
      meter.stop();
      resetCompositionRoot(undefined);
      restoreEnv();
    },
  };
  return binding;
}
