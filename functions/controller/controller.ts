/**
 * controller — EventBridge schedule (rate 1 min) as a heartbeat; the invocation that holds the `controller`
 * lease keeps Kubernetes watches open for ~14 minutes and turns changes into provisioner rounds and
 * disruption passes within seconds (shared/core/lifecycle/controller.ts). The others exit at once, or wait for
 * the holder's hand-over when it is due within the minute. See docs/controller.md.
 */
import type { Context } from 'aws-lambda';
import { runController, type ControllerDeps, type ControllerOptions, type ControllerResult } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { invoker, watch } from '../../shared/adapters/compose/parts/controller';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';

/** Stop this long before the function's timeout, so the hand-over and the lease release always happen. */
const SAFETY_MS = 45_000;
const DEFAULT_BUDGET_MS = 14 * 60_000;
/**
 * The hand-over is planned this long after a heartbeat (the schedule's `time`): the heartbeat a minute earlier is then
 * outside the 65 s hand-over window and exits, and the next one waits these few seconds — not a whole minute of a
 * second controller billed while it sleeps (≈ 7 % of the controller's bill).
 */
const AFTER_HEARTBEAT_MS = 6_000;

/** Milliseconds since the EventBridge tick that invoked this run (0 when the event names none, at most a minute). */
function sinceHeartbeat(event: unknown, now: number): number {
  const time = Date.parse(String((event as { time?: unknown } | null)?.time ?? ''));
  return Number.isFinite(time) ? Math.min(60_000, Math.max(0, now - time)) : 0;
}

export const createHandler =
  (deps: ControllerDeps, options: Omit<ControllerOptions, 'holder'> = {}) =>
  async (event: unknown, context?: Context): Promise<ControllerResult> => {
    const holder = context?.awsRequestId ?? `controller-${deps.clock.now()}`;
    const remaining = context?.getRemainingTimeInMillis?.();
    const planned = DEFAULT_BUDGET_MS + AFTER_HEARTBEAT_MS - sinceHeartbeat(event, deps.clock.now());
    const budgetMs = options.budgetMs ?? (remaining !== undefined ? Math.min(planned, remaining - SAFETY_MS) : planned);
    return runController(deps, { ...options, holder, budgetMs });
  };

/**
 * The deployed function: no EC2 client, no instance-type catalog, no scheduler — it runs all day at 192 MB. It
 * runs ~14 minutes, so its metrics go out every minute, not only at the end.
 */
export const handler = deployedHandler('controller', { cluster, workflows, watch, invoker, store }, (deps) => createHandler(deps), { metricsEveryMs: 60_000 });
