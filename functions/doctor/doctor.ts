/**
 * doctor: `nodewright doctor`'s checks run from inside the stack (`nodewright doctor --in-stack` invokes it): the API
 * endpoint is reached from where the functions stand (their VPC placement), with a function role's access entry and
 * RBAC group, and every AWS read is made with a function role. Read-only; nothing is written.
 */
import type { Config } from '../../shared/adapters/config';
import type { Clock } from '../../shared/core/ports';
import { runChecks } from '../../shared/adapters/doctor/run';
import type { DoctorTarget } from '../../shared/adapters/doctor/checks';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';

/** The deploy's own names: the stage from the function-name prefix, the queue from its URL. */
export function doctorTarget(cfg: Config): DoctorTarget {
  return {
    clusterName: cfg.clusterName,
    region: cfg.region,
    stage: cfg.functionNamePrefix.replace(/^nodewright-/, '').replace(/-$/, ''),
    nodeRoleName: cfg.nodeRoleName ?? `KarpenterNodeRole-${cfg.clusterName}`,
    queueName: cfg.interruptionQueueUrl?.split('/').pop() ?? `nodewright-${cfg.clusterName}`,
    ...(cfg.nodeInstanceProfileName ? { nodeInstanceProfileName: cfg.nodeInstanceProfileName } : {}),
  };
}

// Deployed, every function exists and the controller's concurrency is read back: no expected count is needed.
export const createHandler = (deps: { config: Config; clock: Clock }) => async () => {
  const results = await runChecks(doctorTarget(deps.config), { functions: 0, reserved: 0 }, () => deps.clock.now());
  return { results, ok: !results.some((r) => r.status === 'FAIL') };
};

export const handler = deployedHandler('doctor', {}, createHandler);
