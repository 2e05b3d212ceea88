import { DescribeImagesCommand, DescribeSecurityGroupsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { InstanceType, Offering } from '../../../shared/core/instance-types/types';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../../shared/core/model/karpenter';
import type { NodeSelectorRequirement } from '../../../shared/core/model/kube';
import type { LaunchRequest } from '../../../shared/core/ports/cloud-provider';
import type { EksClusterInfo } from '../../../shared/adapters/aws/eks';
import { epochMs } from '../../../shared/core/time';

export const T0 = epochMs(Date.UTC(2026, 10, 21, 12, 0, 0));
export const CLUSTER = 'demo';
export const clusterInfo: EksClusterInfo = {
  name: CLUSTER,
  endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
  certificateAuthority: 'Q0FEQVRB',
  version: '1.31',
  serviceIpv4Cidr: '10.100.0.0/16',
};

export function nodeClass(over: Partial<EC2NodeClass> = {}): EC2NodeClass {
  return {
    name: 'default',
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    role: 'KarpenterNodeRole-demo',
    instanceProfile: 'KarpenterNodeInstanceProfile-demo',
    tags: { team: 'platform' },
    blockDeviceMappings: [],
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    ...over,
  };
}

function nodePool(over: Partial<NodePool> = {}): NodePool {
  return {
    name: 'general',
    weight: 0,
    template: {
      labels: { team: 'platform' },
      annotations: {},
      taints: [],
      startupTaints: [],
      requirements: [],
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: 2592000,
      terminationGracePeriod: null,
    },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 0, budgets: [{ nodes: '10%' }] },
    limits: {},
    ...over,
  };
}

export function nodeClaim(requirements: NodeSelectorRequirement[] = [], over: Partial<NodeClaim> = {}): NodeClaim {
  return {
    name: 'general-x7k2p',
    labels: {},
    annotations: {},
    nodePool: 'general',
    spec: {
      taints: [],
      startupTaints: [],
      requirements,
      resources: { requests: { cpu: 1000, memory: 1024 ** 3 } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      expireAfter: null,
      terminationGracePeriod: null,
    },
    status: { conditions: [] },
    creationTimestamp: T0,
    finalizers: [],
    ...over,
  };
}

const ZONES = ['us-east-1a', 'us-east-1b'];

/** An instance type offered in both test zones, spot at `spot` and on-demand at `od` $/h. */
export function instanceType(name: string, od: number, spot: number, over: Partial<InstanceType> = {}): InstanceType {
  const offerings: Offering[] = ZONES.flatMap((zone, i) => [
    { zone, capacityType: 'on-demand' as const, price: od, available: true },
    { zone, capacityType: 'spot' as const, price: spot + i * 0.001, available: true },
  ]);
  return {
    name,
    arch: 'amd64',
    os: 'linux',
    labels: {},
    capacity: {},
    allocatable: {},
    overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    offerings,
    exotic: false,
    ...over,
  };
}

export function launchRequest(types: InstanceType[], requirements: NodeSelectorRequirement[] = []): LaunchRequest {
  return { nodeClaim: nodeClaim(requirements), nodePool: nodePool(), nodeClass: nodeClass(), instanceTypes: types };
}

/** EC2 and SSM answers for the default node class: two subnets, one SG, AL2023 AMIs for both arches. */
/** One EC2 and one SSM mock per test file (each vitest file runs in its own module graph). */
export const ec2 = mockClient(EC2Client);
export const ssm = mockClient(SSMClient);

export function resetAndMockNodeClassDiscovery(): void {
  ec2.reset();
  ssm.reset();
  ec2.on(DescribeSubnetsCommand).resolves({
    Subnets: [
      { SubnetId: 'subnet-a', AvailabilityZone: 'us-east-1a', AvailabilityZoneId: 'use1-az1', AvailableIpAddressCount: 100, State: 'available' },
      { SubnetId: 'subnet-b', AvailabilityZone: 'us-east-1b', AvailabilityZoneId: 'use1-az2', AvailableIpAddressCount: 50, State: 'available' },
    ],
  });
  ec2.on(DescribeSecurityGroupsCommand).resolves({ SecurityGroups: [{ GroupId: 'sg-1', GroupName: 'nodes' }] });
  ec2.on(DescribeImagesCommand).resolves({ Images: [] });
  ssm.on(GetParameterCommand).callsFake((input: { Name: string }) => ({
    Parameter: { Name: input.Name, Value: input.Name.includes('/arm64/') ? 'ami-arm' : 'ami-x86' },
  }));
}
