/**
 * disruption — EventBridge schedule (rate 1 min) or by hand (`{"reconcile": true}`, one pass): computes
 * disruption commands with the pure core (expiration, emptiness, drift, consolidation; docs/karpenter-reference.md §4) and
 * starts `disrupt` / `terminate` executions. Never two at once (reserved concurrency 1 and a lease).
 */
import type { Context } from 'aws-lambda';
import { invocationEnd, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { lp } from '../../shared/adapters/compose/parts/planner';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { runDisruption, type DisruptionRunOptions, type DisruptionRunResult } from '../../shared/core/lifecycle/disruption-run';
import { epochMs, type EpochMs } from '../../shared/core/time';

export type DisruptionHandlerOptions = Omit<DisruptionRunOptions, 'holder' | 'namingTimeMs' | 'once'>;

const asRecord = (event: unknown): Record<string, unknown> =>
  typeof event === 'object' && event !== null && !Array.isArray(event) ? (event as Record<string, unknown>) : {};

const isManual = (event: unknown): boolean => asRecord(event).reconcile === true;

/**
 * The time of an EventBridge scheduled event (the same when Lambda retries the event), so execution names
 * are stable across retries; undefined for manual runs.
 */
export function scheduledTime(event: unknown): EpochMs | undefined {
  const e = asRecord(event);
  if (e['detail-type'] !== 'Scheduled Event' || typeof e.time !== 'string') return undefined;
  const ms = Date.parse(e.time);
  return Number.isFinite(ms) ? epochMs(ms) : undefined;
}

/** Karpenter's feature gate syntax: FEATURE_GATES="SpotToSpotConsolidation=true,PodDeletionCostManagement=true". */
export function gateEnabled(featureGates: string | undefined, gate: 'SpotToSpotConsolidation' | 'PodDeletionCostManagement'): boolean {
  return (featureGates ?? '').split(',').some((g) => g.trim().replace(/\s+/g, '') === `${gate}=true`);
}

export const createHandler =
  (deps: LifecycleDeps, options: DisruptionHandlerOptions = {}) =>
  async (event: unknown, context?: Context): Promise<DisruptionRunResult> => {
    const holder = context?.awsRequestId ?? `disruption-${deps.clock.now()}`;
    const namingTimeMs = scheduledTime(event);
    // The controller's call carries when it must end (its hand-over): the time left is the smaller.
    const end = invocationEnd(event, 'disruption', deps.clock.now(), context?.getRemainingTimeInMillis?.());
    const remainingMs = end === undefined ? undefined : Math.max(0, end - deps.clock.now());
    return runDisruption(deps, {
      ...options,
      holder,
      once: isManual(event),
      ...(namingTimeMs !== undefined ? { namingTimeMs } : {}),
      ...(remainingMs !== undefined ? { remainingMs } : {}),
    });
  };

export const handler = deployedHandler('disruption', { cluster, cloud, store, workflows, lp }, (deps) =>
  createHandler(deps, {
    core: { spotToSpotConsolidation: gateEnabled(process.env.FEATURE_GATES, 'SpotToSpotConsolidation') },
    podDeletionCostManagement: gateEnabled(process.env.FEATURE_GATES, 'PodDeletionCostManagement'),
    ...(deps.config.shadow ? { shadow: true } : {}),
    loadLp: deps.lp,
  }),
);
