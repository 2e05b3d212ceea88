/** The cost model's Kubernetes side: a function's LIST takes round trip + transfer + parsing on its CPU share, and its memory is charged. */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { FakeKubeApi } from '../../../shared/sim/kube/server';
import { COST_MODEL, cpuShare } from '../../../shared/sim/runtime/cost';
import { HttpInFlight } from '../../../shared/sim/runtime/http-inflight';
import { KubeCost } from '../../../shared/sim/runtime/kube-cost';
import { Meter } from '../../../shared/sim/runtime/metering';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function runUntil(clock: VirtualClock, untilMs: number): Promise<void> {
  for (;;) {
    await settle(clock);
    if (!clock.advance(untilMs)) break;
  }
}

/** A world of `pods` pods of ~2 KB and one function of `memoryMb` that lists them in one request; returns when the answer arrived and its size. */
async function listAsFunction(pods: number, memoryMb: number): Promise<{ ms: number; bytes: number; outcome: string; peakMb: number }> {
  const clock = new VirtualClock(0);
  const api = new FakeKubeApi({ clock: () => clock.now() });
  for (let i = 0; i < pods; i++)
    api.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${i}`, namespace: 'default', annotations: { note: 'x'.repeat(1500) } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
  const server = await api.listen();
  const http = new HttpInFlight().start();
  const removeProbe = clock.addBusyProbe(() => (http.count() > 0 ? 'http' : undefined));
  const meter = new Meter(clock, () => memoryMb);
  const cost = new KubeCost(clock, meter).start();
  api.pace = cost.pace;
  api.onHold = (port) => http.release(port);
  cleanups.push(
    () => server.close(),
    () => {
      removeProbe();
      http.stop();
      cost.stop();
      meter.stop();
    },
  );
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/pods`, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      });
      req.on('error', reject);
      req.end();
    });
  let out = { ms: -1, bytes: 0, outcome: 'pending' };
  void clock.track('fn', () =>
    meter
      .invocation('lister', async (_cold, died) => {
        // As the production client: the request raced with a timeout on the virtual clock.
        const bytes = await Promise.race([get(), clock.sleep(60_000).then(() => -1), died]);
        out = { ms: clock.now(), bytes, outcome: 'ok' };
      })
      .catch((e: Error) => {
        out = { ms: clock.now(), bytes: 0, outcome: e.name };
      }),
  );
  await runUntil(clock, 120_000);
  return { ...out, peakMb: meter.functionStats().get('lister')?.peakMemoryMb ?? 0 };
}

describe('the Kubernetes cost model', () => {
  it('should take the modelled time for a LIST of many objects, longer on a smaller function', async () => {
    // Act
    const big = await listAsFunction(1000, 1769);
    const small = await listAsFunction(1000, 256);
    // Assess
    expect(big.outcome).toBe('ok');
    expect(big.bytes).toBeGreaterThan(1000 * 1500);
    const modelled = (mb: number) =>
      COST_MODEL.kubeRoundTripMs + (big.bytes * COST_MODEL.kubeTransferNsPerByte) / 1e6 + (big.bytes * COST_MODEL.parseCpuNsPerByte) / 1e6 / cpuShare(mb);
    expect(big.ms).toBeGreaterThanOrEqual(Math.floor(modelled(1769)));
    expect(big.ms).toBeLessThanOrEqual(Math.ceil(modelled(1769)) + 1);
    expect(small.ms).toBeGreaterThanOrEqual(Math.floor(modelled(256)));
    expect(small.ms).toBeGreaterThan(big.ms * 3);
    expect(big.peakMb).toBeGreaterThan(COST_MODEL.baselineMb.default);
  }, 60_000);

  it('should fail an invocation whose modelled memory exceeds its size as Lambda does (Runtime.OutOfMemory)', async () => {
    // Act: ~1.7 MB of pods parsed at once (× transientPerByte) on top of the baseline, in a 100 MB function
    const run = await listAsFunction(1000, 100);
    // Assess
    expect(run.outcome).toBe('Runtime.OutOfMemory');
    expect(run.peakMb).toBeGreaterThan(100);
  }, 60_000);
});
