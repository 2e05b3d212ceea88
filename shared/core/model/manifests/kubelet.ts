/** The EC2NodeClass `kubelet` block (docs/karpenter-reference.md §1.2, typed as in Karpenter v1.6). */
import { z } from 'zod';
import type { KubeletConfiguration } from '../karpenter';
import { resources, type ManifestContext } from './context';
import { nonNegativeQuantity, stringish } from './zod-helpers';

const RESERVED_KEYS = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'] as const;
const PERCENT_OR_QUANTITY = /^((\d{1,2}(\.\d+)?|100(\.0+)?)%|[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$/;

const reserved = (what: string) => z.record(z.string(), nonNegativeQuantity).superRefine((m, ctx) => {
  for (const k of Object.keys(m)) {
    if (!(RESERVED_KEYS as readonly string[]).includes(k)) ctx.addIssue({ code: 'custom', path: [k], message: `${what} keys must be one of ${RESERVED_KEYS.join(', ')}` });
  }
});

const eviction = (what: string, valueCheck: (v: string) => boolean, valueHelp: string) =>
  z.record(z.string(), stringish).superRefine((m, ctx) => {
    for (const [k, v] of Object.entries(m)) {
      if (!(EVICTION_SIGNALS as readonly string[]).includes(k)) ctx.addIssue({ code: 'custom', path: [k], message: `${what} signals must be one of ${EVICTION_SIGNALS.join(', ')}` });
      else if (!valueCheck(v)) ctx.addIssue({ code: 'custom', path: [k], message: `${what} value must be ${valueHelp}, got ${JSON.stringify(v)}` });
    }
  });

const DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

export const kubeletSchema = z.object({
  clusterDNS: z.array(z.string()).optional(),
  maxPods: z.number().int().min(0, 'maxPods must be ≥ 0').optional(),
  podsPerCore: z.number().int().min(0, 'podsPerCore must be ≥ 0').optional(),
  systemReserved: reserved('systemReserved').optional(),
  kubeReserved: reserved('kubeReserved').optional(),
  evictionHard: eviction('evictionHard', (v) => PERCENT_OR_QUANTITY.test(v), 'a quantity or a percentage').optional(),
  evictionSoft: eviction('evictionSoft', (v) => PERCENT_OR_QUANTITY.test(v), 'a quantity or a percentage').optional(),
  evictionSoftGracePeriod: eviction('evictionSoftGracePeriod', (v) => DURATION.test(v), 'a duration').optional(),
  evictionMaxPodGracePeriod: z.number().int().optional(),
  imageGCHighThresholdPercent: z.number().int().min(0).max(100, 'imageGCHighThresholdPercent must be between 0 and 100').optional(),
  imageGCLowThresholdPercent: z.number().int().min(0).max(100, 'imageGCLowThresholdPercent must be between 0 and 100').optional(),
  cpuCFSQuota: z.boolean().optional(),
}).superRefine((k, ctx) => {
  const soft = Object.keys(k.evictionSoft ?? {});
  const grace = Object.keys(k.evictionSoftGracePeriod ?? {});
  for (const s of soft) {
    if (!grace.includes(s)) ctx.addIssue({ code: 'custom', path: ['evictionSoft', s], message: `evictionSoft signal ${s} has no matching evictionSoftGracePeriod` });
  }
  for (const g of grace) {
    if (!soft.includes(g)) ctx.addIssue({ code: 'custom', path: ['evictionSoftGracePeriod', g], message: `evictionSoftGracePeriod ${g} has no matching evictionSoft signal` });
  }
  if (k.imageGCHighThresholdPercent !== undefined && k.imageGCLowThresholdPercent !== undefined
    && k.imageGCHighThresholdPercent <= k.imageGCLowThresholdPercent) {
    ctx.addIssue({ code: 'custom', path: ['imageGCHighThresholdPercent'], message: 'imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent' });
  }
});

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
