/**
 * The controller's own AWS bill for a simulated run (`controller` in `simulate -o json`): what the Meter counted
 * (metering.ts), extrapolated from the run's duration to 30 days and priced with prices.ts.
 * docs/controller-cost.md explains every figure and assumption.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { deployParams, FUNCTIONS_DIR, memorySizeOf, REPO_ROOT, type DeployedFunction, type DeployParams } from './functions';
import { BILLING_ASSUMPTIONS, type FunctionUsage, type Meter } from './metering';
import { MONTH_SECONDS, PRICES } from './prices';

export interface FunctionSizing {
  memoryMB: number;
  architecture: 'arm64' | 'x86_64';
}

/**
 * memorySize and architecture of every function, as serverless.yml deploys them with `params` (provider defaults, then
 * the function's own; an infra/memory.cjs memorySize resolved as the deploy does).
 */
export function functionSizing(
  functionsDir = FUNCTIONS_DIR,
  serverlessFile = resolve(REPO_ROOT, 'serverless.yml'),
  params: DeployParams = deployParams(),
): (key: string) => FunctionSizing {
  let provider: { memorySize?: number; architecture?: string } = {};
  try {
    provider = (parse(readFileSync(serverlessFile, 'utf8')) as { provider?: typeof provider } | null)?.provider ?? {};
  } catch {
    provider = {};
  }
  const defaults: FunctionSizing = { memoryMB: Number(provider.memorySize ?? 1024), architecture: provider.architecture === 'arm64' ? 'arm64' : 'x86_64' };
  const own = new Map<string, { memorySize?: unknown; architecture?: string }>();
  for (const file of readdirSync(functionsDir).filter((f) => f.endsWith('.yml'))) {
    const doc = parse(readFileSync(resolve(functionsDir, file), 'utf8')) as Record<string, { memorySize?: unknown; architecture?: string }> | null;
    for (const [key, fn] of Object.entries(doc ?? {})) own.set(key, fn ?? {});
  }
  return (key) => {
    const fn = own.get(key) ?? {};
    return {
      memoryMB: memorySizeOf(key, fn.memorySize, params, `function ${key}`) ?? defaults.memoryMB,
      architecture: fn.architecture === undefined ? defaults.architecture : fn.architecture === 'arm64' ? 'arm64' : 'x86_64',
    };
  };
}

/** The functions as a run deployed them (memory resolved with its parameters), architecture as serverless.yml says. */
function asDeployed(functions: DeployedFunction[]): (key: string) => FunctionSizing {
  const deployed = functionSizing();
  return (key) => {
    const fn = functions.find((f) => f.key === key);
    return { ...deployed(key), ...(fn ? { memoryMB: fn.memorySizeMb } : {}) };
  };
}

export interface ControllerBill {
  /** The run's simulated seconds the figures were counted over. */
  periodSeconds: number;
  lambda: {
    invocations: number;
    coldStarts: number;
    gbSeconds: number;
    functions: Record<
      string,
      {
        invocations: number;
        coldStarts: number;
        memoryMB: number;
        architecture: string;
        virtualSeconds: number;
        billedSeconds: number;
        gbSeconds: number;
        kubeRequests: number;
        slowAwsCalls: number;
      }
    >;
  };
  stepFunctions: { executions: number; stateTransitions: number };
  sqs: { sends: number; receives: number; deletes: number; visibilityChanges?: number; idleReceives: number; requests: number };
  dynamodb: { readRequestUnits: number; writeRequestUnits: number };
  cloudWatch: { customMetrics: number; metrics: string[]; logBytes: number };
  scheduler: { invocations: number };
  /** Each quantity × (30 days / periodSeconds) × its price; custom metrics are per month already. */
  usdPerMonth: {
    lambdaRequests: number;
    lambdaCompute: number;
    stepFunctions: number;
    sqs: number;
    dynamodb: number;
    customMetrics: number;
    logs: number;
    scheduler: number;
    total: number;
  };
}

export interface BillInputs {
  meter: Meter;
  periodSeconds: number;
  functions: DeployedFunction[];
  executions: { transitions?: number; startedMs?: number }[];
  /** Transitions made before the metered period (settings.meterFrom), and its start (ms). */
  baseline?: { transitions: number; startMs: number };
  /** ChangeMessageVisibility(Batch) calls (a failed interruption record's short retry delay) are requests too. */
  queue: { sends: number; receives: number; deletes: number; visibilityChanges?: number };
  sizing?: (key: string) => FunctionSizing;
}

const r2 = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

export function controllerBill(inputs: BillInputs): ControllerBill {
  const { meter, periodSeconds } = inputs;
  const sizing = inputs.sizing ?? asDeployed(inputs.functions);
  const scale = periodSeconds > 0 ? MONTH_SECONDS / periodSeconds : 0;
  const functions: ControllerBill['lambda']['functions'] = {};
  let gbSeconds = 0;
  let computeUsd = 0;
  for (const key of [...meter.functions.keys()].sort()) {
    const u = meter.functions.get(key) as FunctionUsage;
    const s = sizing(key);
    const gbs = (s.memoryMB / 1024) * (u.billedMs / 1000);
    gbSeconds += gbs;
    computeUsd += gbs * PRICES.lambdaGbSecond[s.architecture];
    functions[key] = {
      invocations: u.invocations,
      coldStarts: u.coldStarts,
      memoryMB: s.memoryMB,
      architecture: s.architecture,
      virtualSeconds: r2(u.virtualMs / 1000, 3),
      billedSeconds: r2(u.billedMs / 1000, 3),
      gbSeconds: r2(gbs, 3),
      kubeRequests: u.kubeRequests,
      slowAwsCalls: u.slowAwsCalls,
    };
  }
  const invocations = Object.values(functions).reduce((s, f) => s + f.invocations, 0);
  const coldStarts = Object.values(functions).reduce((s, f) => s + f.coldStarts, 0);
  const transitions = inputs.executions.reduce((s, e) => s + (e.transitions ?? 0), 0) - (inputs.baseline?.transitions ?? 0);
  const executions = inputs.baseline ? inputs.executions.filter((e) => (e.startedMs ?? 0) >= inputs.baseline!.startMs).length : inputs.executions.length;
  const a = BILLING_ASSUMPTIONS;
  const idleReceives = inputs.functions.some((f) => f.sqs) ? Math.floor((periodSeconds / a.sqsLongPollSeconds) * a.sqsPollers) : 0;
  const sqsRequests = inputs.queue.sends + inputs.queue.receives + inputs.queue.deletes + (inputs.queue.visibilityChanges ?? 0) + idleReceives;
  const scheduled = inputs.functions.reduce((s, f) => s + f.schedules.reduce((t, x) => t + Math.floor(periodSeconds / x.everySeconds), 0), 0);
  const metrics = meter.customMetrics();
  const usd = {
    lambdaRequests: invocations * scale * PRICES.lambdaRequest,
    lambdaCompute: computeUsd * scale,
    stepFunctions: transitions * scale * PRICES.stepFunctionsTransition,
    sqs: sqsRequests * scale * PRICES.sqsRequest,
    dynamodb: (meter.dynamo.readRequestUnits * PRICES.dynamoReadRequestUnit + meter.dynamo.writeRequestUnits * PRICES.dynamoWriteRequestUnit) * scale,
    customMetrics: metrics.length * PRICES.cloudWatchMetricMonth,
    logs: (meter.logBytes / 1e9) * scale * PRICES.cloudWatchLogsIngestedGb,
    scheduler: scheduled * scale * PRICES.schedulerInvocation,
  };
  const total = Object.values(usd).reduce((s, x) => s + x, 0);
  return {
    periodSeconds,
    lambda: { invocations, coldStarts, gbSeconds: r2(gbSeconds, 3), functions },
    stepFunctions: { executions, stateTransitions: transitions },
    sqs: { ...inputs.queue, idleReceives, requests: sqsRequests },
    dynamodb: { readRequestUnits: r2(meter.dynamo.readRequestUnits, 1), writeRequestUnits: meter.dynamo.writeRequestUnits },
    cloudWatch: { customMetrics: metrics.length, metrics, logBytes: meter.logBytes },
    scheduler: { invocations: scheduled },
    usdPerMonth: {
      ...(Object.fromEntries(Object.entries(usd).map(([k, v]) => [k, r2(v, 2)])) as Omit<ControllerBill['usdPerMonth'], 'total'>),
      total: r2(total, 2),
    },
  };
}
