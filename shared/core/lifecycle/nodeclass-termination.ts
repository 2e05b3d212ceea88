/**
 * The EC2NodeClass termination finalizer, as Karpenter's nodeclass termination controller keeps it: every node class
 * carries `karpenter.k8s.aws/termination`; a deleted one keeps it (and says why, with a WaitingOnNodeClaimTermination
 * event) until no NodeClaim uses the class, then lets go. Its launch templates and instance profile are cleaned up by
 * garbage collection once the class is gone.
 */
import type { EC2NodeClass } from '../model/karpenter';
import { Finalizer } from '../model/labels';
import { prettySlice } from '../model/pretty';
import type { ClusterObjects } from '../ports';
import type { LifecycleDeps } from './deps';
import { recordEvents } from './events';

/** Adds or releases the finalizer of each node class; returns the classes released. */
export async function reconcileNodeClassFinalizers(deps: Pick<LifecycleDeps, 'cluster' | 'log'>, snapshot: ClusterObjects): Promise<string[]> {
  const released: string[] = [];
  for (const nc of snapshot.nodeClasses) {
    try {
      if (await reconcileOne(deps, snapshot, nc)) released.push(nc.name);
    } catch (e) {
      deps.log.warn('could not reconcile the ec2nodeclass finalizer', { ec2nodeclass: nc.name, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return released;
}

async function reconcileOne(deps: Pick<LifecycleDeps, 'cluster' | 'log'>, snapshot: ClusterObjects, nc: EC2NodeClass): Promise<boolean> {
  const finalizers = nc.finalizers ?? [];
  const has = finalizers.includes(Finalizer.nodeClassTermination);
  if (!nc.deleting) {
    if (!has) await deps.cluster.patchNodeClassFinalizers(nc.name, [...finalizers, Finalizer.nodeClassTermination]);
    return false;
  }
  if (!has) return false;
  const users = snapshot.nodeClaims.filter((c) => c.spec.nodeClassRef.name === nc.name).map((c) => c.name);
  if (users.length > 0) {
    await recordEvents(deps, [
      {
        object: { kind: 'EC2NodeClass', name: nc.name, ...(nc.uid ? { uid: nc.uid } : {}) },
        type: 'Normal',
        reason: 'WaitingOnNodeClaimTermination',
        message: `Waiting on NodeClaim termination for ${prettySlice(users.sort())}`,
        dedupeSeconds: 600,
      },
    ]);
    return false;
  }
  await deps.cluster.patchNodeClassFinalizers(
    nc.name,
    finalizers.filter((f) => f !== Finalizer.nodeClassTermination),
  );
  deps.log.info('deleted ec2nodeclass', { ec2nodeclass: nc.name });
  return true;
}
