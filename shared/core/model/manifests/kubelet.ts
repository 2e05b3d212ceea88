/** The EC2NodeClass `kubelet` block (docs/karpenter-reference.md §1.2, typed as in Karpenter v1.6). */
import * as z from '../../zod';
import type { KubeletConfiguration } from '../karpenter';
import { resources, type ManifestContext } from './context';
import { nonNegativeQuantity, stringish } from './zod-helpers';

const RESERVED_KEYS = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'] as const;
const PERCENT_OR_QUANTITY = /^((\d{1,2}(\.\d+)?|100(\.0+)?)%|[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$/;

const reserved = (what: string) =>
  z.record(z.string(), nonNegativeQuantity).check(
    z.superRefine((m, ctx) => {
      for (const k of Object.keys(m)) {
        if (!(RESERVED_KEYS as readonly string[]).includes(k))
          ctx.addIssue({ code: 'custom', path: [k], message: `${what} keys must be one of ${RESERVED_KEYS.join(', ')}` });
      }
    }),
  );

const eviction = (what: string, valueCheck: (v: string) => boolean, valueHelp: string) =>
  z.record(z.string(), stringish).check(
    z.superRefine((m, ctx) => {
      for (const [k, v] of Object.entries(m)) {
        if (!(EVICTION_SIGNALS as readonly string[]).includes(k))
          ctx.addIssue({ code: 'custom', path: [k], message: `${what} signals must be one of ${EVICTION_SIGNALS.join(', ')}` });
        else if (!valueCheck(v)) ctx.addIssue({ code: 'custom', path: [k], message: `${what} value must be ${valueHelp}, got ${JSON.stringify(v)}` });
      }
    }),
  );

const DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

export const kubeletSchema = z
  .object({
    clusterDNS: z.optional(z.array(z.string())),
    maxPods: z.optional(z.number().check(z.int(), z.gte(0, 'maxPods must be ≥ 0'))),
    podsPerCore: z.optional(z.number().check(z.int(), z.gte(0, 'podsPerCore must be ≥ 0'))),
    systemReserved: z.optional(reserved('systemReserved')),
    kubeReserved: z.optional(reserved('kubeReserved')),
    evictionHard: z.optional(eviction('evictionHard', (v) => PERCENT_OR_QUANTITY.test(v), 'a quantity or a percentage')),
    evictionSoft: z.optional(eviction('evictionSoft', (v) => PERCENT_OR_QUANTITY.test(v), 'a quantity or a percentage')),
    evictionSoftGracePeriod: z.optional(eviction('evictionSoftGracePeriod', (v) => DURATION.test(v), 'a duration')),
    evictionMaxPodGracePeriod: z.optional(z.number().check(z.int())),
    imageGCHighThresholdPercent: z.optional(z.number().check(z.int(), z.gte(0), z.lte(100, 'imageGCHighThresholdPercent must be between 0 and 100'))),
    imageGCLowThresholdPercent: z.optional(z.number().check(z.int(), z.gte(0), z.lte(100, 'imageGCLowThresholdPercent must be between 0 and 100'))),
    cpuCFSQuota: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((k, ctx) => {
      const soft = Object.keys(k.evictionSoft ?? {});
      const grace = Object.keys(k.evictionSoftGracePeriod ?? {});
      for (const s of soft) {
        if (!grace.includes(s))
          ctx.addIssue({ code: 'custom', path: ['evictionSoft', s], message: `evictionSoft signal ${s} has no matching evictionSoftGracePeriod` });
      }
      for (const g of grace) {
        if (!soft.includes(g))
          ctx.addIssue({ code: 'custom', path: ['evictionSoftGracePeriod', g], message: `evictionSoftGracePeriod ${g} has no matching evictionSoft signal` });
      }
      if (
        k.imageGCHighThresholdPercent !== undefined &&
        k.imageGCLowThresholdPercent !== undefined &&
        k.imageGCHighThresholdPercent <= k.imageGCLowThresholdPercent
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['imageGCHighThresholdPercent'],
          message: 'imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent',
        });
      }
    }),
  );

export function toKubelet(k: z.output<typeof kubeletSchema>, ctx: ManifestContext | undefined, path: string): KubeletConfiguration {
  const out: KubeletConfiguration = {};
  if (k.clusterDNS) out.clusterDNS = k.clusterDNS;
  if (k.maxPods !== undefined) out.maxPods = k.maxPods;
  if (k.podsPerCore !== undefined) out.podsPerCore = k.podsPerCore;
  if (k.systemReserved) out.systemReserved = resources(k.systemReserved, ctx, `${path}.systemReserved`);
  if (k.kubeReserved) out.kubeReserved = resources(k.kubeReserved, ctx, `${path}.kubeReserved`);
  if (k.evictionHard) out.evictionHard = k.evictionHard;
  if (k.evictionSoft) out.evictionSoft = k.evictionSoft;
  if (k.evictionSoftGracePeriod) out.evictionSoftGracePeriod = k.evictionSoftGracePeriod;
  if (k.evictionMaxPodGracePeriod !== undefined) out.evictionMaxPodGracePeriod = k.evictionMaxPodGracePeriod;
  if (k.imageGCHighThresholdPercent !== undefined) out.imageGCHighThresholdPercent = k.imageGCHighThresholdPercent;
  if (k.imageGCLowThresholdPercent !== undefined) out.imageGCLowThresholdPercent = k.imageGCLowThresholdPercent;
  if (k.cpuCFSQuota !== undefined) out.cpuCFSQuota = k.cpuCFSQuota;
  return out;
}
