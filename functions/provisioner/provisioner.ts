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
/**
 * A round creates claims for at most this share of the function's timeout; what its plan has left is the next
 * round's (planned again with the pods that arrived meanwhile). Rounds are serial, so a long one holds back every pod
 * that arrives while it runs, and the rest of the timeout is the margin for a slow API server (docs/provisioning.md).
 */
const ROUND_SHARE = 0.5;

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
    // Creating claims stops at half the timeout, and 15 s before the controller's call must end: the rest is the next round's.
    const now = deps.clock.now();
    const remainingMs = context?.getRemainingTimeInMillis?.();
    const end = invocationEnd(event, 'provisioner', now, remainingMs);
    const deadlineMs =
      end === undefined ? undefined : epochMs(Math.min(end - DEADLINE_MARGIN_MS, remainingMs === undefined ? Infinity : now + remainingMs * ROUND_SHARE));
    return runProvisioner(deps, deps.planner, { holder, once: isManual(event), batched, ...(deadlineMs ? { deadlineMs } : {}), ...options });
  };

export const handler = deployedHandler('provisioner', { cluster, cloud, store, workflows, planner }, (deps) => createHandler(deps));
