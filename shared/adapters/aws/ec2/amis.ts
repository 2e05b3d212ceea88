import { paginateDescribeImages, type EC2Client, type Filter } from '@aws-sdk/client-ec2';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { SelectorTerm } from '../../../core/model/karpenter';
import { NodeClassNotReadyError } from '../../../core/errors';
import { Label } from '../../../core/model/labels';
import { awsErrorCode, mapAwsError } from '../errors';
import { tagFilters } from './selectors';

export type Arch = 'amd64' | 'arm64';
/** EKS-optimized AMI flavours: standard, with NVIDIA drivers, with the Neuron (Inferentia/Trainium) driver. */
export type AmiVariant = 'standard' | 'nvidia' | 'neuron';
const AMI_VARIANTS: readonly AmiVariant[] = ['standard', 'nvidia', 'neuron'];

export interface ResolvedAmi {
  id: string;
  name?: string;
  arch: Arch;
  /** Set for alias AMIs; undefined for AMIs selected by id/name/tags (they serve every type of their arch). */
  variant?: AmiVariant;
  /** ISO date; newest wins when several match the same arch. */
  creationDate?: string;
}

const ec2Arch = (a: string | undefined): Arch | undefined => (a === 'x86_64' ? 'amd64' : a === 'arm64' ? 'arm64' : undefined);

/**
 * The public SSM parameter holding the AMI id for an alias (`family@version`), architecture and variant, or
 * undefined when that family publishes no such image (Windows on arm64, AL2 GPU on arm64, …).
 */
export function aliasParameter(alias: string, arch: Arch, k8sVersion: string, variant: AmiVariant = 'standard'): string | undefined {
  const [family, rawVersion = 'latest'] = alias.toLowerCase().split('@');
  const latest = rawVersion === 'latest';
  const x86 = arch === 'amd64';
  switch (family) {
    case 'al2023': {
      if (variant === 'neuron' && !x86) return undefined;
      const a = x86 ? 'x86_64' : 'arm64';
      return latest
        ? `/aws/service/eks/optimized-ami/${k8sVersion}/amazon-linux-2023/${a}/${variant}/recommended/image_id`
        : `/aws/service/eks/optimized-ami/${k8sVersion}/amazon-linux-2023/${a}/${variant}/amazon-eks-node-al2023-${a}-${variant}-${k8sVersion}-${rawVersion}/image_id`;
    }
    case 'al2': {
      // AL2's accelerated AMI (NVIDIA + Neuron drivers) exists for x86_64 only.
      const gpu = variant !== 'standard';
      if (gpu && !x86) return undefined;
      const dir = gpu ? 'amazon-linux-2-gpu' : x86 ? 'amazon-linux-2' : 'amazon-linux-2-arm64';
      const prefix = gpu ? 'amazon-eks-gpu-node' : x86 ? 'amazon-eks-node' : 'amazon-eks-arm64-node';
      return latest
        ? `/aws/service/eks/optimized-ami/${k8sVersion}/${dir}/recommended/image_id`
        : `/aws/service/eks/optimized-ami/${k8sVersion}/${dir}/${prefix}-${k8sVersion}-${rawVersion}/image_id`;
    }
    case 'bottlerocket': {
      if (variant === 'neuron') return undefined;
      const a = x86 ? 'x86_64' : 'arm64';
      const flavour = variant === 'nvidia' ? '-nvidia' : '';
      return `/aws/service/bottlerocket/aws-k8s-${k8sVersion}${flavour}/${a}/${latest ? 'latest' : rawVersion.replace(/^v/, '')}/image_id`;
    }
    case 'windows2019':
    case 'windows2022':
    case 'windows2025': {
      if (!x86 || variant !== 'standard') return undefined;
      const year = family.slice('windows'.length);
      return `/aws/service/ami-windows-latest/Windows_Server-${year}-English-Core-EKS_Optimized-${k8sVersion}/image_id`;
    }
    default:
      throw new NodeClassNotReadyError(
        `amiSelectorTerms: unknown alias family "${family}" in "${alias}" (expected al2, al2023, bottlerocket, windows2019, windows2022 or windows2025)`,
      );
  }
}

async function resolveAlias(ssm: SSMClient, alias: string, k8sVersion: string): Promise<ResolvedAmi[]> {
  const out: ResolvedAmi[] = [];
  for (const variant of AMI_VARIANTS) {
    for (const arch of ['amd64', 'arm64'] as const) {
      const name = aliasParameter(alias, arch, k8sVersion, variant);
      if (!name) continue;
      try {
        const value = (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;
        if (value) out.push({ id: value, arch, variant, name: `${alias} (${name})` });
      } catch (e) {
        // A family may publish no image for one architecture, variant or version: skip it, fail only if none resolve.
        if (awsErrorCode(e) !== 'ParameterNotFound') throw mapAwsError(e, `GetParameter ${name}`);
      }
    }
  }
  return out;
}

async function describeImages(ec2: EC2Client, filters: Filter[], owners: string[] | undefined): Promise<ResolvedAmi[]> {
  const out: ResolvedAmi[] = [];
  try {
    for await (const page of paginateDescribeImages({ client: ec2 }, { Filters: [...filters, { Name: 'state', Values: ['available'] }], Owners: owners })) {
      for (const img of page.Images ?? []) {
        const arch = ec2Arch(img.Architecture);
        if (img.ImageId && arch) out.push({ id: img.ImageId, name: img.Name, arch, creationDate: img.CreationDate });
      }
    }
  } catch (e) {
    throw mapAwsError(e, 'DescribeImages');
  }
  return out;
}

/**
 * AMIs for the node class's amiSelectorTerms: alias via public SSM parameters, otherwise DescribeImages with
 * id / name / tags / owner (name without owner searches self + amazon, like Karpenter). Newest first.
 */
export async function resolveAmis(deps: { ec2: EC2Client; ssm: SSMClient }, terms: SelectorTerm[], k8sVersion: string): Promise<ResolvedAmi[]> {
  const found = new Map<string, ResolvedAmi>();
  for (const term of terms) {
    let amis: ResolvedAmi[];
    if (term.alias) {
      amis = await resolveAlias(deps.ssm, term.alias, k8sVersion);
    } else if (term.ssmParameter) {
      const value = (await deps.ssm.send(new GetParameterCommand({ Name: term.ssmParameter }))).Parameter?.Value;
      amis = value ? await describeImages(deps.ec2, [{ Name: 'image-id', Values: [value] }], undefined) : [];
    } else {
      const filters: Filter[] = [...tagFilters(term.tags)];
      if (term.id) filters.push({ Name: 'image-id', Values: [term.id] });
      if (term.name) filters.push({ Name: 'name', Values: [term.name] });
      const owners = term.owner ? [term.owner] : term.name && !term.id ? ['self', 'amazon'] : undefined;
      if (filters.length === 0 && !owners) continue;
      amis = await describeImages(deps.ec2, filters, owners);
    }
    for (const a of amis) if (!found.has(a.id)) found.set(a.id, a);
  }
  return [...found.values()].sort((a, b) => (b.creationDate ?? '').localeCompare(a.creationDate ?? '') || a.id.localeCompare(b.id));
}

/** The variant an instance type needs: NVIDIA GPUs → nvidia, AWS Inferentia/Trainium → neuron. */
function variantFor(type: { labels: Record<string, string> }): AmiVariant {
  if (type.labels[Label.instanceGpuManufacturer] === 'nvidia') return 'nvidia';
  if (type.labels[Label.instanceAcceleratorManufacturer] === 'aws') return 'neuron';
  return 'standard';
}

/**
 * The AMI to launch an instance type with: the newest of its architecture in the variant it needs, else one
 * selected without a variant (by id/name/tags), else the standard variant.
 */
export function amiFor(amis: ResolvedAmi[], type: { arch: Arch; labels: Record<string, string> }): ResolvedAmi | undefined {
  const sameArch = amis.filter((a) => a.arch === type.arch);
  const variant = variantFor(type);
  return sameArch.find((a) => a.variant === variant) ?? sameArch.find((a) => a.variant === undefined) ?? sameArch.find((a) => a.variant === 'standard');
}
