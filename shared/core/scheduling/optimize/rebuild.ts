/**
 * Turns the chosen patterns back into claims through the scheduler's own InProgressClaim (requirements, taints,
 * offerings, DaemonSet overhead and ports, minValues, 60 types), pinned to its variant's zone when it has one.
 */
import type { Pod } from '../../model/kube';
import { Label } from '../../model/labels';
import type { Dims } from '../dims';
import { finalizeClaim, newFinalizeMemo } from '../finalize';
import { InProgressClaim } from '../nodeclaim';
import { type PodState, withVector } from '../pod-data';
import { Requirement, type Requirements } from '../requirements';
import type { Template, TypeOption } from '../template';
import { Topology } from '../topology';
import type { PlannedNodeClaim, SchedulingInput } from '../types';
import type { Kind, Pattern, Variant } from './patterns';

export function rebuildClaims(
  input: SchedulingInput,
  template: Template,
  dims: Dims,
  types: Variant[],
  kinds: Kind[],
  placed: ReadonlyMap<Pod, PodState>,
  chosen: { p: Pattern; m: number }[],
  seq: { n: number },
): PlannedNodeClaim[] | string {
  const policy = input.options?.minValuesPolicy ?? 'Strict';
  const queues = kinds.map((k) => [...k.pods]);
  // The pods' own rules were settled by the groups (zone kept, one per node for hostname rules): no topology here.
  const topology = new Topology([], []);
  const states = new Map<Pod, PodState>();
  const stateOf = (p: Pod) => {
    let s = states.get(p);
    if (!s) states.set(p, (s = withVector(placed.get(p)!, dims)));
    return s;
  };
  const ct = template.requirements.get(Label.capacityType);
  const byZone = new Map<string | null, { base: Requirements; options: TypeOption[] }>();
  const forZone = (zone: string | null) => {
    let z = byZone.get(zone);
    if (!z) {
      byZone.set(
        zone,
        (z =
          zone === null
            ? { base: template.requirements, options: template.options }
            : {
                base: template.requirements.with(Requirement.in(Label.zone, [zone])),
                options: template.options.filter((o) => o.offerings.some((x) => x.zone === zone && (!ct || ct.has(x.capacityType)))),
              }),
      );
    }
    return z;
  };
  const claims: InProgressClaim[] = [];
  const open = (zone: string | null) => {
    const hostname = `hostname-placeholder-opt-${String(seq.n++).padStart(4, '0')}`;
    const { base, options } = forZone(zone);
    const c = new InProgressClaim(template, hostname, 100_000 + seq.n, base.with(Requirement.in(Label.hostname, [hostname])), options, policy, dims);
    claims.push(c);
    return c;
  };
  const order = [...chosen].sort((a, b) => b.p.cost - a.p.cost);
  for (const { p, m } of order) {
    for (let i = 0; i < m; i++) {
      if (queues.every((q) => q.length === 0)) break;
      const c = open(types[p.type].zone);
      for (let k = 0; k < kinds.length; k++) {
        for (let x = 0; x < p.counts[k] && queues[k].length > 0; x++) {
          const s = stateOf(queues[k][queues[k].length - 1]);
          const planned = c.canAdd(s, topology);
          if (typeof planned === 'string') return 'a pattern did not rebuild as a claim';
          c.commit(s, planned);
          queues[k].pop();
        }
      }
      if (c.pods.length === 0) claims.pop();
    }
  }
  if (queues.some((q) => q.length > 0)) return 'the integer solution left pods over';
  const memo = newFinalizeMemo();
  return claims.map((c) => finalizeClaim(c, input.options?.maxInstanceTypes ?? 60, memo));
}
