/**
 * EC2NodeClass status as Karpenter's nodeclass controller writes it (garbage collection runs it every 2 minutes, and
 * within seconds when the controller sees a class created, changed or deleted):
 * the resolved subnets, security groups, AMIs and instance profile, and the conditions SubnetsReady,
 * SecurityGroupsReady, AMIsReady, InstanceProfileReady, ValidationSucceeded and Ready. A node class the functions
 * cannot read gets ValidationSucceeded=False with the reason naming the field. NodePools follow its Ready
 * (nodepool-status.ts: NodeClassReady).
 */
import type { ClusterObjects } from '../ports';
import type { EC2NodeClass, StatusCondition } from '../model/karpenter';
import type { LifecycleDeps } from './deps';
import { invalidObjectEvent, recordEvents } from './events';
import { withReady } from './nodepool-status';

type NodeClassReady = NonNullable<EC2NodeClass['ready']>;

/**
 * Writes every node class's status (the adapter skips unchanged ones); returns the node classes written. `readiness`,
 * when given, receives each class's Ready as written, so NodePool statuses can follow in the same run.
 */
export async function reconcileNodeClassStatuses(
  deps: Pick<LifecycleDeps, 'cloud' | 'cluster' | 'log'>,
  snapshot: ClusterObjects,
  readiness?: Map<string, NodeClassReady>,
): Promise<string[]> {
  const written: string[] = [];
  const write = async (name: string, run: () => Promise<Parameters<LifecycleDeps['cluster']['patchNodeClassStatus']>[1]>) => {
    try {
      const status = await run();
      const ready = status.conditions.find((c) => c.type === 'Ready');
      if (ready) readiness?.set(name, { status: ready.status, reason: ready.reason, message: ready.message });
      if (await deps.cluster.patchNodeClassStatus(name, status)) written.push(name);
    } catch (e) {
      deps.log.warn('could not write ec2nodeclass status', { ec2nodeclass: name, error: e instanceof Error ? e.message : String(e) });
    }
  };
  for (const nc of snapshot.nodeClasses) {
    if (nc.deleting) continue;
    await write(nc.name, async () => {
      const { conditions, ...resolved } = await deps.cloud.nodeClassStatus(nc);
      const valid: StatusCondition = { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '' };
      return { ...resolved, conditions: withReady([...conditions, valid]) };
    });
  }
  for (const bad of snapshot.invalid ?? []) {
    if (bad.kind !== 'EC2NodeClass') continue;
    await write(bad.name, async () => ({
      conditions: withReady([{ type: 'ValidationSucceeded', status: 'False', reason: 'NodeClassValidationFailed', message: bad.reason }]),
    }));
    if (written.includes(bad.name)) await recordEvents(deps, [invalidObjectEvent('EC2NodeClass', bad.name, 'NodeClassValidationFailed', bad.reason)]);
  }
  return written;
}
