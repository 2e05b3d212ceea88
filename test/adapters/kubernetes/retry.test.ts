import { describe, expect, it } from 'vitest';
import { isRetryable, retrying, withRetries } from '../../../shared/adapters/kubernetes/retry';

const apiError = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });

describe('Kubernetes API retries', () => {
  it('should retry 5xx and connection resets with doubling backoff, then succeed', async () => {
    // Prepare
    const waits: number[] = [];
    let calls = 0;
    const api = withRetries({ readNode: async () => { calls++; if (calls === 1) throw apiError(503); if (calls === 2) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }); return 'node'; } }, 'core', { sleep: async (ms) => { waits.push(ms); } });
    // Act
    const out = await api.readNode();
    // Assess
    expect(out).toBe('node');
    expect(waits).toEqual([250, 500]);
  });

  it('should give up with KubernetesApiUnavailableError after the attempts, naming the call', async () => {
    // Act
    const call = retrying('core.listNode', async () => { throw apiError(500); }, { sleep: async () => undefined });
    // Assess
    await expect(call).rejects.toMatchObject({ name: 'KubernetesApiUnavailableError', message: expect.stringContaining('core.listNode') });
  });

  it('should not retry answers: 404, 409, 422, nor the Eviction API (429: a PDB said no; the drain retries each pass)', () => {
    // Assess
    expect([404, 409, 422].map((c) => isRetryable(apiError(c)))).toEqual([false, false, false]);
    expect(isRetryable(apiError(429), 'policy.createNamespacedPodEviction')).toBe(false);
    expect(isRetryable(apiError(429), 'core.listPodForAllNamespaces')).toBe(true);
  });
});
