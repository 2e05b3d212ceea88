import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubeConfigForServer } from '../../../shared/adapters/kubernetes';
import { committedTestTls, createFakeKubeApi } from '../../../shared/sim/kube';

describe('HTTPS fake API server certificates', () => {
  it('should serve verified TLS with the committed test-only pair (the fallback when openssl is missing)', async () => {
    // Prepare
    const api = createFakeKubeApi({ token: 't' });
    const server = await api.listen({ tls: true, tlsMaterial: committedTestTls() });
    const core = kubeConfigForServer({ server: server.url, token: 't', caData: server.caData }).makeApiClient(CoreV1Api);
    // Act
    const namespaces = await core.listNamespace().finally(() => server.close());
    // Assess
    expect(server.tls?.source).toBe('committed-test-pair');
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('should generate a fresh pair that verifies against its own CA', async () => {
    // Prepare
    const api = createFakeKubeApi();
    const server = await api.listen({ tls: true });
    const core = kubeConfigForServer({ server: server.url, caData: server.caData }).makeApiClient(CoreV1Api);
    // Act
    const nodes = await core.listNode().finally(() => server.close());
    // Assess
    expect(nodes.items).toEqual([]);
  });
});
