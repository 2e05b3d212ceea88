/**
 * zod schemas of the `--instance-types FILE.json` entries (see custom.ts): the catalog form (the fields of a
 * bundled catalog entry, CatalogEntry in types.ts, most optional) and the explicit form (capacity/allocatable/offerings).
 */
import { z } from 'zod';

const nullableString = z.string().nullable().default(null);
const nullableCount = z.number().int().nonnegative().nullable().default(null);
const quantity = z.union([z.string(), z.number()], { error: 'expected a quantity (string like "4Gi" or a number)' });

/** Karpenter's name pattern: category, optional `-NNtb`, generation digits, the rest of the family, `.size`. */
export const NAME_RE = /^([a-z]+)(-[0-9]+tb)?([0-9]+)[a-z0-9-]*\.([a-z0-9-]+)$/;

export const CatalogFormEntry = z.object({
  name: z.string().regex(/^[A-Za-z0-9-]+\.[A-Za-z0-9-]+$/, { error: 'expected an instance type name like "m5.xlarge"' }),
  family: z.string().min(1).optional(),
  category: z.string().min(1).optional(),
  generation: z.number().int().nonnegative().optional(),
  size: z.string().min(1).optional(),
  vcpu: z.number().int().positive(),
  memoryMiB: z.number().int().positive(),
  arch: z.enum(['amd64', 'arm64']).default('amd64'),
  gpuCount: z.number().int().nonnegative().default(0),
  gpuManufacturer: nullableString,
  gpuName: nullableString,
  gpuMemoryMiB: nullableCount,
  hypervisor: nullableString,
  bareMetal: z.boolean().optional(),
  maxENIs: z.number().int().nonnegative().default(0),
  ipv4PerENI: z.number().int().nonnegative().default(0),
  /** Used when maxENIs/ipv4PerENI are absent; 110 (the kubelet default) when that is absent too. */
  maxPodsEni: z.number().int().nonnegative().default(110),
  localNvmeGB: nullableCount,
  networkBandwidthMbps: nullableCount,
  onDemandUsdPerHour: z.record(z.string(), z.number().nonnegative()).default({}),
  acceleratorCount: nullableCount,
  acceleratorName: nullableString,
  acceleratorManufacturer: nullableString,
  branchENIs: z.number().int().nonnegative().optional(),
  specSource: z.string().optional(),
  /** EBS attachments the type allows and whether ENIs share them (absent: no volume limit is applied). */
  ebsAttachments: z.object({ max: z.number().int().positive(), shared: z.boolean() }).optional(),
});
export type CatalogFormEntry = z.infer<typeof CatalogFormEntry>;

export const ExplicitOffering = z.object({
  zone: z.string().min(1),
  zoneId: z.string().min(1).optional(),
  capacityType: z.enum(['on-demand', 'spot', 'reserved']),
  price: z.number().nonnegative(),
  available: z.boolean().default(true),
});

export const ExplicitFormEntry = z.object({
  name: z.string().min(1),
  arch: z.enum(['amd64', 'arm64']).default('amd64'),
  os: z.enum(['linux', 'windows']).default('linux'),
  capacity: z.record(z.string(), quantity),
  allocatable: z.record(z.string(), quantity).optional(),
  offerings: z.array(ExplicitOffering).min(1, { error: 'at least one offering is required' }),
  labels: z.record(z.string(), z.string()).default({}),
  /** GPU/accelerator/metal types are exotic by default; set to override. */
  exotic: z.boolean().optional(),
});
export type ExplicitFormEntry = z.infer<typeof ExplicitFormEntry>;
