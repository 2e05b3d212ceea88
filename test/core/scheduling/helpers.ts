import type { InstanceType } from '../../../shared/core/instance-types/types';
import type { DaemonSet, Namespace, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../shared/core/model/kube';
import type { NodePool } from '../../../shared/core/model/karpenter';
import { solve } from '../../../shared/core/scheduling/solve';
import type { ExistingNode, Plan, SchedulingOptions } from '../../../shared/core/scheduling/types';
import { fakeInstanceTypes, nodePool } from '../../fixtures/builders';

export interface PlanArgs {
  pods: Pod[];
  pools?: NodePool[];
  types?: InstanceType[] | Record<string, InstanceType[]>;
  existing?: ExistingNode[];
  daemonSets?: DaemonSet[];
  pvs?: PersistentVolume[];
  pvcs?: PersistentVolumeClaim[];
  storageClasses?: StorageClass[];
  namespaces?: Namespace[];
  options?: SchedulingOptions;
}

export function plan(a: PlanArgs): Plan {
  const pools = a.pools ?? [nodePool()];
  const types = a.types ?? fakeInstanceTypes();
  const instanceTypes = Array.isArray(types) ? Object.fromEntries(pools.map((p) => [p.name, types])) : types;
  return solve({
    pods: a.pods,
    nodePools: pools,
    instanceTypes,
    existingNodes: a.existing ?? [],
    daemonSets: a.daemonSets ?? [],
    persistentVolumes: a.pvs,
    persistentVolumeClaims: a.pvcs,
    storageClasses: a.storageClasses,
    namespaces: a.namespaces,
    options: a.options,
  });
}

export const scheduledCount = (p: Plan) => p.nodeClaims.reduce((n, c) => n + c.pods.length, 0) + p.existingPlacements.reduce((n, e) => n + e.pods.length, 0);
export const cheapestType = (p: Plan, i = 0) => p.nodeClaims[i].instanceTypes[0].name;
