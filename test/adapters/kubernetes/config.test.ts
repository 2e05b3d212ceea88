import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { cachingTokenProvider, kubeConfigForEks, kubeConfigForServer, KubeConfigInvalidError } from '../../../shared/adapters/kubernetes';
import { createFakeKubeApi, type RunningKubeServer } from '../../../shared/sim/kube';

describe('kubeconfig factories', () => {
  let server: RunningKubeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('should ask the token provider on every request and verify the cluster CA over HTTPS', async () => {
    // Prepare
    const api = createFakeKubeApi({ token: 'k8s-aws-v1.first' });
    server = await api.listen({ tls: true });
    const issued: string[] = [];
    const tokenProvider = {
      token: async () => {
        issued.push('k8s-aws-v1.first');
        return 'k8s-aws-v1.first';
      },
    };
    const core = kubeConfigForEks({ endpoint: server.url, caData: server.caData as string, tokenProvider }).makeApiClient(CoreV1Api);
    // Act
    await core.listNode();
    await core.listNamespace();
    // Assess
    expect(issued).toHaveLength(2);
  });

  it('should fail a request when the provider hands out a token the server refuses', async () => {
    // Prepare
    const api = createFakeKubeApi({ token: 'k8s-aws-v1.good' });
    server = await api.listen({ tls: true });
    const core = kubeConfigForEks({
      endpoint: server.url,
      caData: server.caData as string,
      tokenProvider: { token: async () => 'k8s-aws-v1.expired' },
    }).makeApiClient(CoreV1Api);
    // Act
    const err = await core.listNode().catch((e: unknown) => e);
    // Assess
    expect((err as { code?: number }).code).toBe(401);
  });

  it('should refuse a server whose certificate is not signed by the given CA', async () => {
    // Prepare
    const api = createFakeKubeApi();
    server = await api.listen({ tls: true });
    const otherCa = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIUJ0\n-----END CERTIFICATE-----\n').toString('base64');
    const core = kubeConfigForServer({ server: server.url, caData: otherCa }).makeApiClient(CoreV1Api);
    // Act
    const err = await core.listNode().catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: unknown }).code).not.toBe(200);
  });

  it('should reject an EKS endpoint that is not https', () => {
    // Act
    const act = () => kubeConfigForEks({ endpoint: 'http://example', caData: 'x', tokenProvider: { token: async () => 't' } });
    // Assess
    expect(act).toThrow(KubeConfigInvalidError);
  });

  it('should reuse a cached token until its time to live has passed', async () => {
    // Prepare
    let now = 0;
    let n = 0;
    const provider = cachingTokenProvider({ token: async () => `t${++n}` }, { ttlMs: 1000, now: () => now });
    // Act
    const a = await provider.token();
    now = 999;
    const b = await provider.token();
    now = 1000;
    const c = await provider.token();
    // Assess
    expect([a, b, c]).toEqual(['t1', 't1', 't2']);
  });
});
