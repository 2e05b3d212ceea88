/**
 * Karpenter's `--scheduler-config` / `SCHEDULER_CONFIG` (pkg/operator/options SchedulerConfiguration): the parts of the
 * cluster's kube-scheduler the simulation must mirror — today `podTopologySpread.defaultConstraints`. Validated as
 * kube-scheduler validates its PodTopologySpread args: unknown fields refused, maxSkew > 0, a qualified topologyKey,
 * DoNotSchedule or ScheduleAnyway, no labelSelector (deduced per pod), no two constraints on the same key and mode.
 */
import { parse } from 'yaml';
import * as z from '../zod';
import type { TopologySpreadConstraint } from './kube';
import { qualifiedNameProblem } from './manifests/label-rules';

class SchedulerConfigInvalidError extends Error {
  override readonly name = 'SchedulerConfigInvalidError' as const;
}

const constraint = z.strictObject({
  maxSkew: z.number().check(z.int(), z.gt(0, 'maxSkew must be greater than 0')),
  topologyKey: z.string().check(z.refine((k) => !qualifiedNameProblem(k), { error: (iss) => `topologyKey ${qualifiedNameProblem(String(iss.input))}` })),
  whenUnsatisfiable: z.enum(['DoNotSchedule', 'ScheduleAnyway']),
  minDomains: z.optional(z.number().check(z.int(), z.gt(0))),
  nodeAffinityPolicy: z.optional(z.enum(['Honor', 'Ignore'])),
  nodeTaintsPolicy: z.optional(z.enum(['Honor', 'Ignore'])),
});

const schema = z.strictObject({
  podTopologySpread: z.optional(z.strictObject({ defaultConstraints: z.optional(z.array(constraint)) })),
});

/** The default topology spread constraints of a scheduler config (empty for an empty config); throws naming the field. */
export function parseSchedulerConfig(raw: string | undefined): TopologySpreadConstraint[] {
  if (!raw || raw.trim() === '') return [];
  let value: unknown;
  try {
    value = parse(raw);
  } catch (e) {
    throw new SchedulerConfigInvalidError(`scheduler config is not YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new SchedulerConfigInvalidError(
      `scheduler config ${i.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, '')}: ${i.message}`,
    );
  }
  const defaults = r.data.podTopologySpread?.defaultConstraints ?? [];
  defaults.forEach((c, i) => {
    const j = defaults.findIndex((d) => d.topologyKey === c.topologyKey && d.whenUnsatisfiable === c.whenUnsatisfiable);
    if (j < i)
      throw new SchedulerConfigInvalidError(
        `scheduler config podTopologySpread.defaultConstraints[${i}] is a duplicate of [${j}], {${c.topologyKey}, ${c.whenUnsatisfiable}}`,
      );
  });
  return defaults.map((c) => ({ ...c }));
}
