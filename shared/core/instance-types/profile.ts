/**
 * The node-class settings that shape capacity and overhead, resolved once per buildInstanceTypes call
 * (docs/karpenter-reference.md §3.1): AMI family traits, kubelet settings, the ephemeral volume and the eviction thresholds.
 */
import type { NodeSelectorRequirement } from '../model/kube';
import type { EC2NodeClass, NetworkInterface } from '../model/karpenter';
import { parseBytes } from '../model/quantity';
import type { ResourceList } from '../model/resources';
import { amiFamilyTraits, type AmiFamilyTraits } from './ami-family';

/** A kubelet setting on the node class has a value nodewright cannot use. */
export class KubeletConfigurationInvalidError extends Error {
  override readonly name = 'KubeletConfigurationInvalidError' as const;
}

/** An eviction threshold: a percentage of capacity, or an absolute amount of bytes. */
export type Threshold = { percent: number } | { bytes: number };

export interface BuildProfile {
  traits: AmiFamilyTraits;
  vmOverheadPercent: number;
  reservedENIs: number;
  maxPods?: number;
  podsPerCore?: number;
  kubeReserved?: ResourceList;
  systemReserved?: ResourceList;
  evictionMemory?: Threshold;
  evictionNodefs?: Threshold;
  /** instanceStorePolicy RAID0: the instance store (when the type has one) is the ephemeral storage. */
  raid0: boolean;
  /** Ephemeral storage in bytes from the block device mappings / AMI family default. */
  ephemeralBytes: number;
  /** Resolved AMIs' requirements; a type is compatible when it matches any of them. Absent = all compatible. */
  amiRequirements?: NodeSelectorRequirement[][];
  /** EC2NodeClass spec.networkInterfaces, when set: they decide compatibility, the EFA count and the ENIs left for pods. */
  networkInterfaces?: readonly NetworkInterface[];
}

function parseThreshold(nodeClass: string, signal: string, value: string): Threshold {
  const v = value.trim();
  if (v.endsWith('%')) {
    const p = Number(v.slice(0, -1));
    if (!Number.isFinite(p) || p < 0 || p > 100) {
      throw new KubeletConfigurationInvalidError(`EC2NodeClass ${nodeClass}: kubelet.evictionHard.${signal}: invalid percentage ${JSON.stringify(value)}`);
    }
    // "100%" disables the threshold (kubelet semantics).
    return { percent: p === 100 ? 0 : p };
  }
  try {
    return { bytes: parseBytes(v) };
  } catch {
    throw new KubeletConfigurationInvalidError(`EC2NodeClass ${nodeClass}: kubelet.evictionHard.${signal}: invalid quantity ${JSON.stringify(value)}`);
  }
}

/** The ephemeral (root) volume size from the block device mappings, else the AMI family default. */
function ephemeralVolumeBytes(nodeClass: EC2NodeClass | undefined, traits: AmiFamilyTraits): number {
  const bdms = nodeClass?.blockDeviceMappings ?? [];
  if (bdms.length > 0) {
    const root = bdms.find((b) => b.rootVolume);
    if (root?.ebs?.volumeSize != null) return root.ebs.volumeSize;
    if (traits.ephemeralDevice === null) return bdms[bdms.length - 1].ebs?.volumeSize ?? traits.defaultEphemeralBytes;
    const dev = bdms.find((b) => b.deviceName === traits.ephemeralDevice);
    if (dev?.ebs?.volumeSize != null) return dev.ebs.volumeSize;
  }
  return traits.defaultEphemeralBytes;
}

export function resolveProfile(nodeClass: EC2NodeClass | undefined, vmOverheadPercent = 0.075, reservedENIs = 0): BuildProfile {
  const traits = amiFamilyTraits(nodeClass?.amiFamily);
  const kubelet = nodeClass?.kubelet;
  const name = nodeClass?.name ?? '(none)';
  const hard = kubelet?.evictionHard ?? {};
  const amis = nodeClass?.status?.amis;
  const amiRequirements = amis && amis.length > 0 && amis.every((a) => a.requirements) ? amis.map((a) => a.requirements ?? []) : undefined;
  return {
    traits,
    vmOverheadPercent,
    reservedENIs: Math.max(0, reservedENIs),
    maxPods: kubelet?.maxPods,
    podsPerCore: kubelet?.podsPerCore,
    kubeReserved: kubelet?.kubeReserved,
    systemReserved: kubelet?.systemReserved,
    evictionMemory: hard['memory.available'] !== undefined ? parseThreshold(name, 'memory.available', hard['memory.available']) : undefined,
    evictionNodefs: hard['nodefs.available'] !== undefined ? parseThreshold(name, 'nodefs.available', hard['nodefs.available']) : undefined,
    raid0: nodeClass?.instanceStorePolicy === 'RAID0',
    ephemeralBytes: ephemeralVolumeBytes(nodeClass, traits),
    amiRequirements,
    ...(nodeClass?.networkInterfaces ? { networkInterfaces: nodeClass.networkInterfaces } : {}),
  };
}
