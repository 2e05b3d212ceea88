import type { Server } from 'node:https';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeClusterClient, kubeConfigForEks } from '../../../shared/adapters/kubernetes';
import { createFakeKubeApi } from '../../../shared/sim/kube';

describe('KubeClusterClient connections', () => {
  const api = createFakeKubeApi({ token: 't' });
  afterAll(async () => {
    for (const s of (api as unknown as { servers: Set<Server> }).servers) s.closeAllConnections();
  });

  it('should reuse TLS connections across snapshots instead of a handshake per request', async () => {
    // Prepare
    const srv = await api.listen({ tls: true });
    let handshakes = 0;
    for (const s of (api as unknown as { servers: Set<Server> }).servers) s.on('secureConnection', () => handshakes++);
    const client = new KubeClusterClient(kubeConfigForEks({ endpoint: srv.url, caData: srv.caData!, tokenProvider: { token: async () => 't' } }));
    // Act
    await client.snapshot();
    const afterFirst = handshakes;
    for (let i = 0; i < 4; i++) await client.snapshot();
    // Assess
    expect(afterFirst).toBeGreaterThan(0);
    expect(handshakes).toBe(afterFirst);
    await srv.close();
  });
});
