/**
 * What the AMI family changes about an instance type (docs/karpenter-reference.md §3.1): the OS, how pods are counted, whether
 * podsPerCore applies, which pod count kube-reserved memory uses, and the default ephemeral (root) volume.
 */
import type { AmiFamily } from '../model/karpenter';

const GiB = 2 ** 30;

export interface AmiFamilyTraits {
  family: AmiFamily;
  os: 'linux' | 'windows';
  /** Pods default to the VPC-CNI ENI limit; otherwise 110. */
  eniLimitedPods: boolean;
  /** kubelet.podsPerCore caps pods (Bottlerocket ignores it). */
  podsPerCore: boolean;
  /** kube-reserved memory is computed from the ENI-limited pod count even when maxPods is set. */
  eniLimitedMemoryOverhead: boolean;
  /** The block device that holds the kubelet's ephemeral storage (Custom: unknown, the last mapping is used). */
  ephemeralDevice: string | null;
  /** Its default size in bytes. */
  defaultEphemeralBytes: number;
  /** node.kubernetes.io/windows-build value. */
  windowsBuild?: string;
}

const linux = { os: 'linux', eniLimitedPods: true, podsPerCore: true, eniLimitedMemoryOverhead: true } as const;
const windows = {
  os: 'windows',
  eniLimitedPods: false,
  podsPerCore: true,
  eniLimitedMemoryOverhead: false,
  ephemeralDevice: '/dev/sda1',
  defaultEphemeralBytes: 50 * GiB,
} as const;

const TRAITS: Record<AmiFamily, AmiFamilyTraits> = {
  AL2: { family: 'AL2', ...linux, ephemeralDevice: '/dev/xvda', defaultEphemeralBytes: 20 * GiB },
  AL2023: { family: 'AL2023', ...linux, ephemeralDevice: '/dev/xvda', defaultEphemeralBytes: 20 * GiB },
  Custom: { family: 'Custom', ...linux, ephemeralDevice: null, defaultEphemeralBytes: 20 * GiB },
  Bottlerocket: {
    family: 'Bottlerocket',
    ...linux,
    podsPerCore: false,
    eniLimitedMemoryOverhead: false,
    ephemeralDevice: '/dev/xvdb',
    defaultEphemeralBytes: 20 * GiB,
  },
  Windows2019: { family: 'Windows2019', ...windows, windowsBuild: '10.0.17763' },
  Windows2022: { family: 'Windows2022', ...windows, windowsBuild: '10.0.20348' },
  Windows2025: { family: 'Windows2025', ...windows, windowsBuild: '10.0.26100' },
};

/** The family used when no node class is given. */
const DEFAULT_AMI_FAMILY: AmiFamily = 'AL2023';

export function amiFamilyTraits(family: AmiFamily | undefined): AmiFamilyTraits {
  return TRAITS[family ?? DEFAULT_AMI_FAMILY] ?? TRAITS[DEFAULT_AMI_FAMILY];
}
