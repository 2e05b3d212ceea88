/**
 * The provisioner: invoked by the controller when a batch of pending pods closes (`{"reconcile": true,
 * "batched": true}`), by hand (`{"reconcile": true}`), or by the `launch` machine's reconcile input. Batches pending pods, solves, creates NodeClaims and starts their `launch` executions.
 */
import type { Context } from 'aws-lambda';
import { invocationEnd, runProvisioner, type LifecycleDeps, type Planner, type ProvisionerResult } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { planner } from '../../shared/adapters/compose/parts/planner';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { epochMs } from '../../shared/core/time';

const DEADLINE_MARGIN_MS = 15_000;

export interface ProvisionerDeps extends LifecycleDeps {
  planner: Planner;
}

const isManual = (event: unknown): boolean =>
  typeof event === 'object' &&
  event !== null &&
  ((event as Record<string, unknown>).reconcile === true || (event as Record<string, unknown>).kind === 'reconcile');

export const createHandler =
  (deps: ProvisionerDeps, options: { budgetMs?: number; pollMs?: number } = {}) =>
  async (event: unknown, context?: Context): Promise<ProvisionerResult> => {
    const holder = context?.awsRequestId ?? `provisioner-${deps.clock.now()}`;
    // A manual reconcile runs one round; the scheduled run keeps polling while pods are pending (~50 s).
    const batched = isManual(event) && (event as Record<string, unknown>).batched === true;
    // Creating claims stops 15 s before the timeout, or before the controller's call must end: what is left is the next round's.
    const end = invocationEnd(event, 'provisioner', deps.clock.now(), context?.getRemainingTimeInMillis?.());
    const deadlineMs = end === undefined ? undefined : epochMs(end - DEADLINE_MARGIN_MS);
    return runProvisioner(deps, deps.planner, { holder, once: isManual(event), batched, ...(deadlineMs ? { deadlineMs } : {}), ...options });
  };

export const handler = deployedHandler('provisioner', { cluster, cloud, store, workflows, planner }, (deps) => createHandler(deps));
