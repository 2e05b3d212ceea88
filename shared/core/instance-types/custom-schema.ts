/**
 * zod schemas of the `--instance-types FILE.json` entries (see custom.ts): the catalog form (the fields of a
 * bundled catalog entry, CatalogEntry in types.ts, most optional) and the explicit form (capacity/allocatable/offerings).
 */
import * as z from '../zod';

const nullableString = z._default(z.nullable(z.string()), null);
const nullableCount = z._default(z.nullable(z.number().check(z.int(), z.nonnegative())), null);
const quantity = z.union([z.string(), z.number()], { error: 'expected a quantity (string like "4Gi" or a number)' });

/** Karpenter's name pattern: category, optional `-NNtb`, generation digits, the rest of the family, `.size`. */
export const NAME_RE = /^([a-z]+)(-[0-9]+tb)?([0-9]+)[a-z0-9-]*\.([a-z0-9-]+)$/;

export const CatalogFormEntry = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9-]+\.[A-Za-z0-9-]+$/, { error: 'expected an instance type name like "m5.xlarge"' })),
  family: z.optional(z.string().check(z.minLength(1))),
  category: z.optional(z.string().check(z.minLength(1))),
  generation: z.optional(z.number().check(z.int(), z.nonnegative())),
  size: z.optional(z.string().check(z.minLength(1))),
  vcpu: z.number().check(z.int(), z.positive()),
  memoryMiB: z.number().check(z.int(), z.positive()),
  arch: z._default(z.enum(['amd64', 'arm64']), 'amd64'),
  gpuCount: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  gpuManufacturer: nullableString,
  gpuName: nullableString,
  gpuMemoryMiB: nullableCount,
  hypervisor: nullableString,
  bareMetal: z.optional(z.boolean()),
  maxENIs: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  ipv4PerENI: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /** Used when maxENIs/ipv4PerENI are absent; 110 (the kubelet default) when that is absent too. */
  maxPodsEni: z._default(z.number().check(z.int(), z.nonnegative()), 110),
  localNvmeGB: nullableCount,
  networkBandwidthMbps: nullableCount,
  onDemandUsdPerHour: z._default(z.record(z.string(), z.number().check(z.nonnegative())), {}),
  acceleratorCount: nullableCount,
  acceleratorName: nullableString,
  acceleratorManufacturer: nullableString,
  branchENIs: z.optional(z.number().check(z.int(), z.nonnegative())),
  specSource: z.optional(z.string()),
  /** EBS attachments the type allows and whether ENIs share them (absent: no volume limit is applied). */
  ebsAttachments: z.optional(z.object({ max: z.number().check(z.int(), z.positive()), shared: z.boolean() })),
});
export type CatalogFormEntry = z.infer<typeof CatalogFormEntry>;

const ExplicitOffering = z.object({
  zone: z.string().check(z.minLength(1)),
  zoneId: z.optional(z.string().check(z.minLength(1))),
  capacityType: z.enum(['on-demand', 'spot', 'reserved']),
  price: z.number().check(z.nonnegative()),
  available: z._default(z.boolean(), true),
});

export const ExplicitFormEntry = z.object({
  name: z.string().check(z.minLength(1)),
  arch: z._default(z.enum(['amd64', 'arm64']), 'amd64'),
  os: z._default(z.enum(['linux', 'windows']), 'linux'),
  capacity: z.record(z.string(), quantity),
  allocatable: z.optional(z.record(z.string(), quantity)),
  offerings: z.array(ExplicitOffering).check(z.minLength(1, { error: 'at least one offering is required' })),
  labels: z._default(z.record(z.string(), z.string()), {}),
  /** GPU/accelerator/metal types are exotic by default; set to override. */
  exotic: z.optional(z.boolean()),
});
export type ExplicitFormEntry = z.infer<typeof ExplicitFormEntry>;
