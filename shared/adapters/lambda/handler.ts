/**
 * The Lambda edge every nodewright function shares: middy + Powertools Logger (JSON logs, Lambda context,
 * cold start) + Powertools Metrics (EMF). Handlers stay `(event) => result` functions built by
 * `createHandler(deps)`; this wrapper only adds the runtime concerns around them.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import warmup from '@middy/warmup';
import type { Context } from 'aws-lambda';
import type { LifecycleLogger } from '../../core/lifecycle/deps';
import { WARMUP_SOURCE } from '../../core/ports/function-invoker';

const SERVICE_NAME = 'nodewright';

/** One Logger per process; child loggers carry the function key. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
export const metrics = new Metrics({ namespace: SERVICE_NAME, serviceName: SERVICE_NAME });
/** Karpenter's metrics (shared/adapters/metrics/emf.ts): an instance of their own, one EMF document per dimension set. */
export const karpenterMetrics = new Metrics({ namespace: SERVICE_NAME, serviceName: SERVICE_NAME });

/** The Powertools logger as the core's LifecycleLogger. */
export function lifecycleLogger(base: Logger = logger): LifecycleLogger {
  return {
    info: (message, fields) => (fields ? base.info(message, fields) : base.info(message)),
    warn: (message, fields) => (fields ? base.warn(message, fields) : base.warn(message)),
    error: (message, fields) => (fields ? base.error(message, fields) : base.error(message)),
  };
}

export type PlainHandler<E, R> = (event: E, context?: Context) => Promise<R>;

/**
 * Wraps a plain handler for Lambda. Errors are logged with their name and rethrown unchanged, so Step
 * Functions Retry/Catch still match on `name` (e.g. InsufficientCapacityError).
 */
export function lambdaHandler<E, R>(functionKey: string, handle: PlainHandler<E, R>) {
  // No early-timeout timer: Lambda reports Sandbox.Timedout itself (the state machines retry it), and the
  // handlers that run long budget their own time from context.getRemainingTimeInMillis().
  return (
    middy<E, R, Error, Context>({ timeoutEarlyInMillis: 0 })
      // A keep-warm ping (the controller's, docs/controller.md) only keeps the sandbox: no logs, no metrics, no work.
      .use(warmup({ isWarmingUp: (event: unknown) => (event as { source?: unknown } | null)?.source === WARMUP_SOURCE }))
      .use(injectLambdaContext(logger, { resetKeys: true }))
      // No ColdStart metric: Powertools emits it per function name, one billed custom metric for each of the ~25
      // functions (≈ $7.50/month); cold starts stay visible for free in Lambda's REPORT lines (Init Duration).
      .use(logMetrics(metrics, { captureColdStartMetric: false, throwOnEmptyMetrics: false }))
      .use({
        before: () => {
          logger.appendKeys({ function: functionKey });
        },
        after: () => {
          // One metric per invocation also keeps Powertools from warning about an empty metrics flush.
          metrics.addMetric('HandlerSucceeded', MetricUnit.Count, 1);
        },
        onError: (request) => {
          const e = request.error;
          metrics.addMetric('HandlerError', MetricUnit.Count, 1);
          logger.error('handler failed', { function: functionKey, errorName: e?.name, errorMessage: e?.message });
        },
      })
      .handler((event: E, context: Context) => handle(event, context))
  );
}
