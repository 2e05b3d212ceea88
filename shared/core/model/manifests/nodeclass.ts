/** karpenter.k8s.aws/v1 EC2NodeClass: zod validation (docs/karpenter-reference.md §1.2) and mapping to EC2NodeClass. */
import * as z from '../../zod';
import type { AmiFamily, EC2NodeClass } from '../karpenter';
import { nodeClassHash } from '../hash';
import { Annotation } from '../labels';
import { arr, obj, str, type Json, type ManifestContext } from './context';
import { kubeletSchema, toKubelet } from './kubelet';
import { networkInterfacesSchema } from './network-interfaces';
import { nodeSelectorRequirement } from './scheduling-fields';
import { parseOrThrow, positiveQuantity, requiredObject, stringish } from './zod-helpers';
import { parseBytes } from '../quantity';

const tagsSchema = z.record(z.string(), stringish).check(
  z.superRefine((tags, ctx) => {
    for (const [k, v] of Object.entries(tags)) {
      if (k === '') ctx.addIssue({ code: 'custom', path: [k], message: 'empty tag keys are not allowed' });
      if (v === '') ctx.addIssue({ code: 'custom', path: [k], message: 'empty tag values are not allowed in selector terms' });
    }
  }),
);

const term = <T extends z.core.$ZodLooseShape>(shape: T, idPattern: RegExp, idName: string) =>
  z.object({ ...shape, tags: z.optional(tagsSchema), id: z.optional(z.string().check(z.regex(idPattern, `id must look like ${idName}`))) }).check(
    z.superRefine((t: Record<string, unknown>, ctx) => {
      const set = Object.keys(t).filter((k) => t[k] !== undefined);
      if (set.length === 0) ctx.addIssue({ code: 'custom', path: [], message: `expected at least one of ${['tags', 'id', ...Object.keys(shape)].join(', ')}` });
      if (t.id !== undefined && set.length > 1)
        ctx.addIssue({ code: 'custom', path: ['id'], message: "'id' is mutually exclusive, cannot be set with a combination of other fields" });
      if (t.tags !== undefined && Object.keys(t.tags as object).length === 0)
        ctx.addIssue({ code: 'custom', path: ['tags'], message: 'tags must not be empty' });
    }),
  );

const terms = <T extends z.ZodMiniType>(schema: T, what: string) =>
  z
    .array(schema, { error: (iss) => (iss.input === undefined ? `${what} is required` : `${what} must be a list`) })
    .check(z.minLength(1, `${what} must have at least one term`), z.maxLength(30, `${what} allows at most 30 terms`));

const ALIAS_FAMILIES: Record<string, AmiFamily> = {
  al2: 'AL2',
  al2023: 'AL2023',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
  windows2025: 'Windows2025',
};

const amiTermSchema = term(
  {
    alias: z.optional(z.string()),
    name: z.optional(z.string()),
    owner: z.optional(stringish),
    ssmParameter: z.optional(z.string()),
  },
  /^ami-[0-9a-z]+$/,
  'ami-0123456789abcdef0',
).check(
  z.superRefine((t, ctx) => {
    if (t.alias === undefined) return;
    const m = /^([a-zA-Z0-9]+)@(.+)$/.exec(t.alias);
    const family = m ? m[1].toLowerCase() : '';
    if (!m || !Object.hasOwn(ALIAS_FAMILIES, family)) {
      ctx.addIssue({ code: 'custom', path: ['alias'], message: `alias must be family@version with family one of ${Object.keys(ALIAS_FAMILIES).join(', ')}` });
      return;
    }
    const version = m[2];
    if (family.startsWith('windows') && version !== 'latest') {
      ctx.addIssue({ code: 'custom', path: ['alias'], message: 'Windows aliases only support @latest' });
    } else if (version !== 'latest' && !/^v\d[\w.-]*$/.test(version)) {
      ctx.addIssue({
        code: 'custom',
        path: ['alias'],
        message: `alias version must be "latest" or pinned like v20240625 / v1.20.4, got ${JSON.stringify(version)}`,
      });
    }
    if (t.tags !== undefined || t.name !== undefined || t.owner !== undefined || t.ssmParameter !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['alias'], message: "'alias' is mutually exclusive, cannot be set with a combination of other fields" });
    }
  }),
);

const RESTRICTED_TAG = (k: string): boolean =>
  k === 'eks:eks-cluster-name' ||
  k.startsWith('kubernetes.io/cluster') ||
  k === 'karpenter.sh/nodepool' ||
  k === 'karpenter.sh/nodeclaim' ||
  k === 'karpenter.k8s.aws/ec2nodeclass';

const bdmSchema = z.object({
  deviceName: z.string({ error: 'deviceName is required' }).check(z.minLength(1)),
  rootVolume: z.optional(z.boolean()),
  ebs: z.optional(
    z
      .object({
        volumeSize: z.optional(positiveQuantity),
        volumeType: z.optional(z.enum(['standard', 'io1', 'io2', 'gp2', 'sc1', 'st1', 'gp3'])),
        iops: z.optional(z.number().check(z.int(), z.gte(0))),
        throughput: z.optional(z.number().check(z.int(), z.gte(0))),
        encrypted: z.optional(z.boolean()),
        kmsKeyID: z.optional(z.string()),
        deleteOnTermination: z.optional(z.boolean()),
        snapshotID: z.optional(z.string()),
      })
      .check(z.refine((e) => e.volumeSize !== undefined || e.snapshotID !== undefined, 'snapshotID or volumeSize must be defined')),
  ),
});

const capacityReservationTermSchema = z
  .object({
    tags: z.optional(tagsSchema),
    id: z.optional(z.string().check(z.regex(/^cr-[0-9a-z]+$/, 'id must look like cr-0123456789abcdef0'))),
    ownerID: z.optional(z.string().check(z.regex(/^[0-9]{12}$/, 'ownerID must be a 12-digit AWS account id'))),
  })
  .check(
    z.superRefine((t, ctx) => {
      if (t.tags === undefined && t.id === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'expected at least one of tags, id' });
      if (t.id !== undefined && (t.tags !== undefined || t.ownerID !== undefined)) {
        ctx.addIssue({ code: 'custom', path: ['id'], message: "'id' is mutually exclusive, cannot be set along with tags or ownerID" });
      }
    }),
  );

export const nodeClassSchema = z.object({
  metadata: z.object({ name: z.string({ error: 'metadata.name is required' }).check(z.minLength(1, 'metadata.name is required')) }),
  spec: requiredObject(
    {
      amiFamily: z.optional(z.enum(['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022', 'Windows2025'])),
      amiSelectorTerms: terms(amiTermSchema, 'amiSelectorTerms'),
      subnetSelectorTerms: terms(term({}, /^subnet-[0-9a-z]+$/, 'subnet-0123456789abcdef0'), 'subnetSelectorTerms'),
      securityGroupSelectorTerms: terms(term({ name: z.optional(z.string()) }, /^sg-[0-9a-z]+$/, 'sg-0123456789abcdef0'), 'securityGroupSelectorTerms'),
      capacityReservationSelectorTerms: z.optional(
        z.array(capacityReservationTermSchema).check(z.maxLength(30, 'capacityReservationSelectorTerms allows at most 30 terms')),
      ),
      role: z.optional(z.string().check(z.minLength(1, 'role must not be empty'))),
      instanceProfile: z.optional(z.string().check(z.minLength(1, 'instanceProfile must not be empty'))),
      userData: z.optional(z.string()),
      tags: z.optional(
        z.record(z.string(), stringish).check(
          z.superRefine((tags, ctx) => {
            for (const k of Object.keys(tags)) {
              if (k === '' || RESTRICTED_TAG(k)) ctx.addIssue({ code: 'custom', path: [k], message: `tag key ${JSON.stringify(k)} is restricted` });
            }
          }),
        ),
      ),
      kubelet: z.optional(kubeletSchema),
      blockDeviceMappings: z.optional(z.array(bdmSchema).check(z.maxLength(50, 'at most 50 blockDeviceMappings are allowed'))),
      metadataOptions: z.optional(
        z.object({
          httpEndpoint: z.optional(z.enum(['enabled', 'disabled'])),
          httpProtocolIPv6: z.optional(z.enum(['enabled', 'disabled'])),
          httpPutResponseHopLimit: z.optional(
            z
              .number()
              .check(z.int(), z.gte(1, 'httpPutResponseHopLimit must be between 1 and 64'), z.lte(64, 'httpPutResponseHopLimit must be between 1 and 64')),
          ),
          httpTokens: z.optional(z.enum(['required', 'optional'])),
        }),
      ),
      associatePublicIPAddress: z.optional(z.boolean()),
      detailedMonitoring: z.optional(z.boolean()),
      instanceStorePolicy: z.optional(z.enum(['RAID0'])),
      networkInterfaces: z.optional(networkInterfacesSchema),
      context: z.optional(z.string()),
    },
    'spec',
  ).check(
    z.superRefine((s, ctx) => {
      const aliases = s.amiSelectorTerms.filter((t) => t.alias !== undefined);
      if (aliases.length > 0 && s.amiSelectorTerms.length > 1) {
        ctx.addIssue({ code: 'custom', path: ['amiSelectorTerms'], message: "'alias' must be the only term in amiSelectorTerms" });
      }
      if (aliases.length === 0 && s.amiFamily === undefined) {
        ctx.addIssue({ code: 'custom', path: ['amiFamily'], message: 'amiFamily is required when amiSelectorTerms has no alias' });
      }
      if (
        aliases.length === 1 &&
        s.amiFamily !== undefined &&
        s.amiFamily !== 'Custom' &&
        s.amiFamily !== ALIAS_FAMILIES[aliases[0].alias!.split('@')[0].toLowerCase()]
      ) {
        ctx.addIssue({ code: 'custom', path: ['amiFamily'], message: `amiFamily ${s.amiFamily} does not match alias ${aliases[0].alias}` });
      }
      if ((s.role === undefined) === (s.instanceProfile === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [s.role === undefined ? 'role' : 'instanceProfile'],
          message: "must specify exactly one of ['role', 'instanceProfile']",
        });
      }
      const roots = (s.blockDeviceMappings ?? []).map((b, i) => [b.rootVolume, i] as const).filter(([r]) => r);
      if (roots.length > 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['blockDeviceMappings', roots[1][1], 'rootVolume'],
          message: 'at most one blockDeviceMapping may be the rootVolume',
        });
      }
    }),
  ),
});

export interface NodeClassOptions extends ManifestContext {
  /** Appended to every problem (e.g. " (converted from karpenter.k8s.aws/v1alpha1 AWSNodeTemplate)"). */
  problemSuffix?: string;
  /** Converted alpha objects may lack both role and instanceProfile (the alpha default came from settings). */
  allowMissingIdentity?: boolean;
  /** The pre-v1 default hop limit (2) for converted objects. */
  defaultHopLimit?: number;
}

/** Validates a karpenter.k8s.aws/v1 EC2NodeClass, applies defaults and returns the EC2NodeClass. */
export function nodeClassFromKube(o: Json, ctx?: NodeClassOptions): EC2NodeClass {
  let input: unknown = o;
  if (ctx?.allowMissingIdentity && !obj(o.spec).role && !obj(o.spec).instanceProfile) {
    input = { ...o, spec: { ...obj(o.spec), role: '<unset>' } };
  }
  const parsed = parseOrThrow(nodeClassSchema, input, ctx, ctx?.problemSuffix);
  const s = parsed.spec;
  const alias = s.amiSelectorTerms.find((t) => t.alias !== undefined)?.alias;
  const mo = s.metadataOptions ?? {};
  const nc: EC2NodeClass = {
    name: parsed.metadata.name,
    amiFamily: s.amiFamily ?? ALIAS_FAMILIES[alias!.split('@')[0].toLowerCase()],
    amiSelectorTerms: s.amiSelectorTerms.map((t) => strip({ ...t, alias: t.alias && `${t.alias.split('@')[0].toLowerCase()}@${t.alias.split('@')[1]}` })),
    subnetSelectorTerms: s.subnetSelectorTerms.map((t) => strip(t)),
    securityGroupSelectorTerms: s.securityGroupSelectorTerms.map((t) => strip(t)),
    tags: s.tags ?? {},
    blockDeviceMappings: (s.blockDeviceMappings ?? []).map((b) =>
      strip({
        deviceName: b.deviceName,
        rootVolume: b.rootVolume,
        ebs: b.ebs && strip({ ...b.ebs, volumeSize: b.ebs.volumeSize === undefined ? undefined : parseBytes(b.ebs.volumeSize) }),
      }),
    ),
    metadataOptions: {
      httpEndpoint: mo.httpEndpoint ?? 'enabled',
      httpProtocolIPv6: mo.httpProtocolIPv6 ?? 'disabled',
      httpPutResponseHopLimit: mo.httpPutResponseHopLimit ?? ctx?.defaultHopLimit ?? 1,
      httpTokens: mo.httpTokens ?? 'required',
    },
  };
  if (s.capacityReservationSelectorTerms)
    nc.capacityReservationSelectorTerms = s.capacityReservationSelectorTerms.map((t) => strip({ tags: t.tags, id: t.id, owner: t.ownerID }));
  if (s.role !== undefined && s.role !== '<unset>') nc.role = s.role;
  if (s.instanceProfile !== undefined) nc.instanceProfile = s.instanceProfile;
  if (s.userData !== undefined) nc.userData = s.userData;
  if (s.kubelet !== undefined) nc.kubelet = toKubelet(s.kubelet, ctx, 'spec.kubelet');
  if (s.associatePublicIPAddress !== undefined) nc.associatePublicIPAddress = s.associatePublicIPAddress;
  if (s.detailedMonitoring !== undefined) nc.detailedMonitoring = s.detailedMonitoring;
  if (s.instanceStorePolicy !== undefined) nc.instanceStorePolicy = s.instanceStorePolicy;
  if (s.networkInterfaces !== undefined) nc.networkInterfaces = s.networkInterfaces.map((n) => ({ ...n }));
  if (s.context !== undefined) nc.context = s.context;
  const metadata = obj(o.metadata);
  const uid = str(metadata.uid);
  if (uid) nc.uid = uid;
  const status = nodeClassStatus(obj(o.status));
  if (status) nc.status = status;
  nc.hash = nodeClassHash(nc);
  const annotations = obj(metadata.annotations);
  const recorded = { hash: str(annotations[Annotation.nodeClassHash]), version: str(annotations[Annotation.nodeClassHashVersion]) };
  if (recorded.hash !== undefined || recorded.version !== undefined) nc.recordedHash = recorded;
  if (metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null) nc.deleting = true;
  const finalizers = arr(metadata.finalizers).map((f) => str(f) ?? '');
  if (finalizers.length) nc.finalizers = finalizers;
  const ready = arr(obj(o.status).conditions)
    .map(obj)
    .find((c) => c.type === 'Ready');
  if (ready)
    nc.ready = {
      status: ready.status === 'True' || ready.status === 'False' ? ready.status : 'Unknown',
      reason: String(ready.reason ?? ''),
      message: String(ready.message ?? ''),
    };
  return nc;
}

function strip<T extends object>(o: T): T {
  const out = {} as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

function nodeClassStatus(status: Json): EC2NodeClass['status'] | undefined {
  if (Object.keys(status).length === 0) return undefined;
  const out: NonNullable<EC2NodeClass['status']> = {};
  if (Array.isArray(status.subnets))
    out.subnets = arr(status.subnets)
      .map(obj)
      .map((s) => strip({ id: str(s.id) ?? '', zone: str(s.zone) ?? '', zoneID: str(s.zoneID) }));
  if (Array.isArray(status.securityGroups))
    out.securityGroups = arr(status.securityGroups)
      .map(obj)
      .map((g) => strip({ id: str(g.id) ?? '', name: str(g.name) }));
  if (Array.isArray(status.amis)) {
    out.amis = arr(status.amis)
      .map(obj)
      .map((a, i) =>
        strip({
          id: str(a.id) ?? '',
          name: str(a.name),
          requirements: Array.isArray(a.requirements)
            ? a.requirements.map((r, j) => nodeSelectorRequirement(r, undefined, `status.amis[${i}].requirements[${j}]`))
            : undefined,
        }),
      );
  }
  const ip = str(status.instanceProfile);
  if (ip) out.instanceProfile = ip;
  return out;
}
