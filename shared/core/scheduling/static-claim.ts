/**
 * A static NodePool's NodeClaim (Karpenter v1.8+ `spec.replicas`): made from the pool's template alone — no
 * pods — so its requirements are the pool's and its instance types every compatible one that can hold the
 * pool's DaemonSets, cheapest first, cut to 60; the launch picks among them like any claim.
 */
import type { InstanceType } from '../instance-types/types';
import type { DaemonSet } from '../model/kube';
import type { NodePool } from '../model/karpenter';
import { Dims } from './dims';
import { finalizeClaim } from './finalize';
import { InProgressClaim } from './nodeclaim';
import { buildTemplate } from './template';
import type { PlannedNodeClaim } from './types';

export const isStatic = (pool: Pick<NodePool, 'replicas'>): boolean => pool.replicas !== undefined;

/** The claim to launch for one replica of a static pool, or why none can be made. */
export function staticNodeClaim(pool: NodePool, types: InstanceType[], daemonSets: DaemonSet[], index = 0, maxInstanceTypes = 60): PlannedNodeClaim | string {
  const names = new Set<string>(['pods']);
  for (const d of daemonSets) for (const k in d.template.requests) names.add(k);
  const dims = new Dims(names);
  const t = buildTemplate(pool, types, daemonSets, dims);
  if (t.options.length === 0) return `no instance types available for nodepool "${pool.name}"`;
  const claim = new InProgressClaim(t, `static-${pool.name}-${index}`, index, t.requirements, t.options, 'BestEffort', dims);
  return finalizeClaim(claim, maxInstanceTypes);
}
