/**
 * What an EKS node's kubelet and cloud controller publish beyond capacity and labels, so a simulated Node is as
 * large as a real one (~9 KB served): the images the EKS AMI pre-pulls and the add-ons' DaemonSets pull
 * (VPC CNI, kube-proxy, CoreDNS, EBS CSI, Pod Identity, node monitoring), the kubelet's
 * pressure conditions and the EKS node monitoring agent's, nodeInfo, the daemon endpoint and the annotations
 * the kubelet and controllers set. All derived from the instance by hashing: the same run gives the same node.
 */
import { createHash } from 'node:crypto';
import type { Json } from '../kube/types';
import { imageDigest } from './pod-content';

const hex = (s: string, n: number): string => createHash('sha256').update(s).digest('hex').slice(0, n);
const uuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

const KUBELET_VERSION = 'v1.32.3-eks-473151a';

/**
 * [repository under the EKS registry or a full name, tag, size in bytes]: the AMI's pause image and the images of
 * the usual add-ons' DaemonSets (11 entries; a node that ran workloads lists theirs too, which is not modelled).
 */
const SYSTEM_IMAGES: [string, string, number][] = [
  ['eks/pause', '3.10', 299_514],
  ['amazon-k8s-cni', 'v1.19.2-eksbuild.1', 43_891_024],
  ['amazon-k8s-cni-init', 'v1.19.2-eksbuild.1', 61_974_389],
  ['amazon/aws-network-policy-agent', 'v1.1.6-eksbuild.1', 35_924_651],
  ['eks/kube-proxy', 'v1.32.0-minimal-eksbuild.2', 37_453_102],
  ['eks/coredns', 'v1.11.4-eksbuild.2', 18_970_845],
  ['eks/aws-ebs-csi-driver', 'v1.41.0', 34_815_420],
  ['eks/csi-node-driver-registrar', 'v2.13.0-eks-1-32-7', 14_506_201],
  ['eks/livenessprobe', 'v2.14.0-eks-1-32-7', 14_118_933],
  ['eks/eks-pod-identity-agent', 'v0.1.21', 23_486_157],
  ['eks/eks-node-monitoring-agent', 'v1.2.0-eksbuild.1', 68_720_384],
];

/** The node's image list (`status.images`), largest first as the kubelet reports it. */
export function nodeImages(region: string): Json[] {
  return SYSTEM_IMAGES.map(([repo, tag, sizeBytes]) => {
    const full = repo.includes('.') && repo.split('/')[0].includes('.') ? repo : `602401143452.dkr.ecr.${region}.amazonaws.com/${repo}`;
    return { names: [imageDigest(`${full}:${tag}`), `${full}:${tag}`], sizeBytes };
  }).sort((a, b) => b.sizeBytes - a.sizeBytes);
}

/** The kubelet's conditions and the EKS node monitoring agent's, all healthy. */
export function healthyConditions(nowIso: string): Json[] {
  const c = (type: string, status: string, reason: string, message: string) => ({
    lastHeartbeatTime: nowIso,
    lastTransitionTime: nowIso,
    message,
    reason,
    status,
    type,
  });
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    c('KernelReady', 'True', 'KernelIsReady', 'Monitoring for the Kernel system is active'),
    c('NetworkingReady', 'True', 'NetworkingIsReady', 'Monitoring for the Networking system is active'),
    c('StorageReady', 'True', 'DiskIsReady', 'Monitoring for the Disk system is active'),
    c('ContainerRuntimeReady', 'True', 'ContainerRuntimeIsReady', 'Monitoring for the ContainerRuntime system is active'),
  ];
}

/** The instance's boot ID after its `boot`-th reboot (0: as launched): a reboot gives the node a new one, as Linux does. */
export const bootId = (instanceId: string, boot = 0): string => uuid(hex(boot ? `boot/${instanceId}/${boot}` : `boot/${instanceId}`, 32));

/** `status.nodeInfo` for an Amazon Linux 2023 node of this instance. */
export function nodeInfo(instanceId: string, arch: string): Json {
  const kernelArch = arch === 'arm64' ? 'aarch64' : 'x86_64';
  return {
    architecture: arch,
    bootID: bootId(instanceId),
    containerRuntimeVersion: 'containerd://1.7.27',
    kernelVersion: `6.1.132-147.221.amzn2023.${kernelArch}`,
    kubeProxyVersion: KUBELET_VERSION,
    kubeletVersion: KUBELET_VERSION,
    machineID: hex(`machine/${instanceId}`, 32),
    operatingSystem: 'linux',
    osImage: 'Amazon Linux 2023.7.20250414',
    systemUUID: `ec2${hex(`uuid/${instanceId}`, 29)}`.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5'),
  };
}

/** Annotations the kubelet, the attach-detach controller, the TTL controller and the EBS CSI node plugin set. */
export function nodeAnnotations(instanceId: string, privateIp: string): Record<string, string> {
  return {
    'alpha.kubernetes.io/provided-node-ip': privateIp,
    'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'ebs.csi.aws.com': instanceId }),
    'node.alpha.kubernetes.io/ttl': '0',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  };
}

/** Labels the kubelet and the AWS cloud controller set besides the well-known ones (beta and legacy names, the provider's). */
export function legacyNodeLabels(arch: string, zone: string, region: string, clusterHash: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    'k8s.io/cloud-provider-aws': clusterHash,
  };
}
