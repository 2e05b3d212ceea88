import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { describeCluster, EksClusterNotReadyError, EksTokenProvider, presignEksToken } from '../../../shared/adapters/aws/eks';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

const decode = (token: string) => new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());

describe('presignEksToken', () => {
  it('should produce k8s-aws-v1. + base64url of a presigned STS GetCallerIdentity URL bound to the cluster', async () => {
    // Act
    const token = await presignEksToken({ clusterName: 'demo', region: 'eu-west-1', credentials, signingDate: T0 });
    // Assess
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token).not.toMatch(/[=+/]/);
    const url = decode(token);
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261121T120000Z');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it("should name the partition's regional STS endpoint: amazonaws.com.cn in AWS China, amazonaws.com in GovCloud", async () => {
    // Act
    const hosts = await Promise.all(
      ['cn-north-1', 'us-gov-west-1'].map(async (region) => decode(await presignEksToken({ clusterName: 'demo', region, credentials, signingDate: T0 })).host),
    );
    // Assess
    expect(hosts).toEqual(['sts.cn-north-1.amazonaws.com.cn', 'sts.us-gov-west-1.amazonaws.com']);
  });
});

describe('EksTokenProvider', () => {
  it('should reuse the token while it is fresh and re-sign it shortly before expiry', async () => {
    // Prepare
    let now = T0;
    const provider = new EksTokenProvider({ clusterName: 'demo', region: 'us-east-1', credentials, clock: () => now });
    // Act
    const first = await provider.token();
    now = T0 + 12 * 60_000;
    const cached = await provider.token();
    now = T0 + 13 * 60_000 + 1;
    const refreshed = await provider.token();
    // Assess
    expect(cached).toBe(first);
    expect(refreshed).not.toBe(first);
    expect(decode(refreshed).searchParams.get('X-Amz-Date')).toBe('20261121T121300Z');
    expect(provider.expiresAt).toBe(T0 + 13 * 60_000 + 1 + 14 * 60_000);
  });
});

describe('describeCluster', () => {
  const eks = mockClient(EKSClient);

  it('should return the endpoint, CA and version of an active cluster', async () => {
    // Prepare
    eks.reset();
    eks.on(DescribeClusterCommand, { name: 'demo' }).resolves({
      cluster: {
        name: 'demo',
        endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
        certificateAuthority: { data: 'LS0tLS1CRUdJTg==' },
        version: '1.31',
        status: 'ACTIVE',
        kubernetesNetworkConfig: { serviceIpv4Cidr: '10.100.0.0/16', ipFamily: 'ipv4' },
      },
    });
    // Act
    const info = await describeCluster(new EKSClient({ region: 'us-east-1' }), 'demo');
    // Assess
    expect(info).toMatchObject({
      endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
      certificateAuthority: 'LS0tLS1CRUdJTg==',
      version: '1.31',
      serviceIpv4Cidr: '10.100.0.0/16',
    });
  });

  it('should fail clearly while the cluster has no endpoint yet', async () => {
    // Prepare
    eks.reset();
    eks.on(DescribeClusterCommand).resolves({ cluster: { name: 'demo', status: 'CREATING', version: '1.31' } });
    // Act
    const act = describeCluster(new EKSClient({ region: 'us-east-1' }), 'demo');
    // Assess
    await expect(act).rejects.toThrow(EksClusterNotReadyError);
    await expect(act).rejects.toThrow(/demo.*endpoint.*CREATING/);
  });
});

describe('EksTokenProvider, concurrent callers', () => {
  it('should sign once when many requests ask for a token at the same time', async () => {
    // Prepare
    let signings = 0;
    const provider = new EksTokenProvider({
      clusterName: 'demo',
      region: 'us-east-1',
      clock: () => T0,
      credentials: async () => {
        signings += 1;
        return credentials;
      },
    });
    // Act
    const tokens = await Promise.all([provider.token(), provider.token(), provider.token()]);
    // Assess
    expect(new Set(tokens).size).toBe(1);
    expect(signings).toBe(1);
  });
});
