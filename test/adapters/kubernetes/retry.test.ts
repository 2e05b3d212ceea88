import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { kubeConfigForServer } from '../../../shared/adapters/kubernetes/config';
import { makeApis } from '../../../shared/adapters/kubernetes/apis';
import { DEFAULT_REQUEST_TIMEOUT_MS, isRetryable, retrying } from '../../../shared/adapters/kubernetes/retry';

const apiError = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });

/** A clock whose backoff sleeps end at once and whose request timeouts never fire unless aborted. */
const backoffOnly = (waits: number[]) => (ms: number, signal?: AbortSignal) => {
  if (ms >= DEFAULT_REQUEST_TIMEOUT_MS) return new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));
  waits.push(ms);
  return Promise.resolve();
};

describe('Kubernetes API retries', () => {
  it('should retry 5xx and connection resets with doubling backoff, then succeed', async () => {
    // Prepare
    const waits: number[] = [];
    let calls = 0;
    const readNode = async () => {
      calls++;
      if (calls === 1) throw apiError(503);
      if (calls === 2) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      return 'node';
    };
    // Act
    const out = await retrying('core.readNode', readNode, { sleep: backoffOnly(waits) });
    // Assess
    expect(out).toBe('node');
    expect(waits).toEqual([250, 500]);
  });

  it('should give up with KubernetesApiUnavailableError after the attempts, naming the call', async () => {
    // Act
    const call = retrying(
      'core.listNode',
      async () => {
        throw apiError(500);
      },
      { sleep: backoffOnly([]) },
    );
    // Assess
    await expect(call).rejects.toMatchObject({ name: 'KubernetesApiUnavailableError', message: expect.stringContaining('core.listNode') });
  });

  it('should not retry answers: 404, 409, 422, nor the Eviction API (429: a PDB said no; the drain retries each pass)', () => {
    // Assess
    expect([404, 409, 422].map((c) => isRetryable(apiError(c)))).toEqual([false, false, false]);
    expect(isRetryable(apiError(429), 'core.createNamespacedPodEviction')).toBe(false);
    expect(isRetryable(apiError(500), 'core.createNamespacedPodEviction')).toBe(false);
    expect(isRetryable(apiError(429), 'core.listPodForAllNamespaces')).toBe(true);
  });

  it('should retry an eviction that got no answer (a timeout or a dropped connection), as any call', () => {
    // Assess
    expect(isRetryable(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'core.createNamespacedPodEviction')).toBe(true);
    expect(isRetryable(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' }), 'core.createNamespacedPodEviction')).toBe(true);
  });

  it('should abort a request the server never answers, retry while the call budget allows, then report the API unavailable', async () => {
    // Prepare: a server that reads requests and never answers them
    const held: IncomingMessage[] = [];
    let closed = 0;
    const server = createServer((req) => {
      held.push(req);
      req.socket.on('close', () => closed++);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const kc = kubeConfigForServer({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const { core } = makeApis(kc, { attempts: 4, baseMs: 1, timeoutMs: 50, budgetMs: 120 });
    try {
      // Act
      const call = core.listNode();
      // Assess: two attempts, each aborted (its connection closed), then the named error
      await expect(call).rejects.toMatchObject({
        name: 'KubernetesApiUnavailableError',
        message: expect.stringMatching(/core\.listNode.*2 attempts.*no answer within 0\.05 s/),
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(held).toHaveLength(2);
      expect(closed).toBe(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
