import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { mapAwsError } from '../errors';

/** What nodewright needs to know about the EKS cluster (API endpoint, CA, version, service CIDR). */
export interface EksClusterInfo {
  name: string;
  arn?: string;
  /** https://… */
  endpoint: string;
  /** Base64 PEM bundle, as DescribeCluster returns it (kubeconfig `certificate-authority-data`). */
  certificateAuthority: string;
  /** Kubernetes minor version, e.g. "1.31". */
  version: string;
  status?: string;
  /** Service CIDR (nodeadm needs it), e.g. 10.100.0.0/16. */
  serviceIpv4Cidr?: string;
  serviceIpv6Cidr?: string;
  ipFamily?: 'ipv4' | 'ipv6';
}

export class EksClusterNotReadyError extends Error {
  override readonly name = 'EksClusterNotReadyError' as const;
}

/** DescribeCluster → endpoint + CA; a cluster without them yet (still creating) is a clear error. */
export async function describeCluster(eks: EKSClient, name: string): Promise<EksClusterInfo> {
  let cluster;
  try {
    cluster = (await eks.send(new DescribeClusterCommand({ name }))).cluster;
  } catch (e) {
    throw mapAwsError(e, `DescribeCluster ${name}`);
  }
  const endpoint = cluster?.endpoint;
  const ca = cluster?.certificateAuthority?.data;
  if (!cluster || !endpoint || !ca || !cluster.version) {
    throw new EksClusterNotReadyError(
      `EKS cluster "${name}" has no ${!endpoint ? 'endpoint' : !ca ? 'certificate authority' : 'version'} yet (status ${cluster?.status ?? 'unknown'})`,
    );
  }
  const net = cluster.kubernetesNetworkConfig;
  return {
    name,
    arn: cluster.arn,
    endpoint,
    certificateAuthority: ca,
    version: cluster.version,
    status: cluster.status,
    serviceIpv4Cidr: net?.serviceIpv4Cidr,
    serviceIpv6Cidr: net?.serviceIpv6Cidr,
    ipFamily: net?.ipFamily === 'ipv6' ? 'ipv6' : 'ipv4',
  };
}
