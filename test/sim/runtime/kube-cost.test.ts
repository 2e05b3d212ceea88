/** The cost model's Kubernetes side: a function's LIST takes round trip + transfer + parsing on its CPU share, and its memory is charged. */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HighsLpSolver } from '../../../shared/adapters/lp/highs';
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

/** A fake API server holding `pods` pods of ~2 KB, paced by the cost model for functions of `memoryMb`. */
async function podWorld(pods: number, memoryMb: number) {
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
  api.onAnswer = (port) => http.resume(port);
  cleanups.push(
    () => server.close(),
    () => {
      removeProbe();
      http.stop();
      cost.stop();
      meter.stop();
    },
  );
  return { clock, meter, url: server.url };
}

/** A world of `pods` pods of ~2 KB and one function of `memoryMb` that lists them in one request; returns when the answer arrived and its size. */
async function listAsFunction(pods: number, memoryMb: number): Promise<{ ms: number; bytes: number; outcome: string; peakMb: number }> {
  const { clock, meter, url } = await podWorld(pods, memoryMb);
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${url}/api/v1/pods`, (res) => {
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

/** `paths` requested by one function, each in its own invocation, one after the other in the same sandbox: each one's modelled peak. */
async function invocationsOfOneSandbox(pods: number, paths: string[]): Promise<number[]> {
  const { clock, meter, url } = await podWorld(pods, 1024);
  const get = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${url}${path}`, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end();
    });
  const peaks: number[] = [];
  void clock.track('fn', async () => {
    for (const path of paths)
      await meter.invocation('planner', async () => {
        // As the production client: the request raced with a timeout on the virtual clock.
        await Promise.race([get(path), clock.sleep(60_000)]);
        peaks.push(meter.running()!.peakMb);
      });
  });
  await runUntil(clock, 120_000);
  return peaks;
}

/** A function that reads `pods` pods in pages of `limit`, one page after the other, while the clock has a timer every second; when each page arrived. */
async function pagedListAsFunction(pods: number, limit: number, memoryMb: number): Promise<{ arrivals: number[]; bytes: number[] }> {
  const { clock, meter, url } = await podWorld(pods, memoryMb);
  const page = (cont: string | undefined) =>
    new Promise<{ bytes: number; cont?: string }>((resolve, reject) => {
      const req = request(`${url}/api/v1/pods?limit=${limit}${cont ? `&continue=${cont}` : ''}`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ bytes: body.length, cont: (JSON.parse(body.toString()) as { metadata?: { continue?: string } }).metadata?.continue || undefined });
        });
      });
      req.on('error', reject);
      req.end();
    });
  // Something else on the clock (the simulator's controllers, other functions' timers): a timer every second.
  for (let t = 1000; t <= 60_000; t += 1000) clock.at(t, () => undefined);
  const out = { arrivals: [] as number[], bytes: [] as number[] };
  void clock.track('fn', () =>
    meter.invocation('lister', async () => {
      let cont: string | undefined;
      do {
        // As the production client: each request raced with a timeout on the virtual clock.
        const r = await Promise.race([page(cont), clock.sleep(60_000).then(() => ({ bytes: -1, cont: undefined }))]);
        out.arrivals.push(clock.now());
        out.bytes.push(r.bytes);
        cont = r.cont;
      } while (cont);
    }),
  );
  await runUntil(clock, 120_000);
  return out;
}

describe('the Kubernetes cost model', () => {
  it("should keep a sandbox's listing in its memory into the next invocation (a warm snapshot), and not an object read by name", async () => {
    // Act: a listing, then two reads by name in the same warm sandbox
    const [listing, next, third] = await invocationsOfOneSandbox(400, [
      '/api/v1/pods?limit=500',
      '/api/v1/namespaces/default/pods/p1',
      '/api/v1/namespaces/default/pods/p2',
    ]);
    // Assess: ~0.7 MB listed (one page), half of it retained from the next invocation on, the single pods not accumulating
    const retained = listing - COST_MODEL.baselineMb.default;
    expect(retained).toBeGreaterThan(0);
    expect(next - COST_MODEL.baselineMb.default).toBeGreaterThan((400 * 1500 * COST_MODEL.retainedPerByte.default) / 2 ** 20);
    expect(third).toBeCloseTo(next, 1);
  }, 60_000);

  it('should charge a sandbox the LP solver it loaded, in that invocation and the next ones', async () => {
    // Prepare
    const { clock, meter } = await podWorld(0, 1024);
    const peaks: number[] = [];
    // Act: the first invocation loads HiGHS (as a planner's first large group does); the second only runs
    void clock.track('fn', async () => {
      await meter.invocation('planner', async () => {
        peaks.push(meter.running()!.peakMb);
        await HighsLpSolver.load();
        peaks.push(meter.running()!.peakMb);
      });
      await meter.invocation('planner', async () => void peaks.push(meter.running()!.peakMb));
    });
    await runUntil(clock, 10_000);
    // Assess: ≈ 24 MB more from the load on
    const [before, loaded, next] = peaks;
    expect(loaded - before).toBeCloseTo(24, 0);
    expect(next).toBeCloseTo(loaded, 1);
  });

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

  it('should read a paged LIST page after page on virtual time, each page as long as its answer takes, whatever else is on the clock', async () => {
    // Act: 4,000 pods of ~2 KB in pages of 500 (~1 MB each: a body that streams through the socket in many chunks)
    const { arrivals, bytes } = await pagedListAsFunction(4000, 500, 1024);
    // Assess: each page took its modelled time after the one before; none waited for the clock's next timer
    expect(arrivals).toHaveLength(8);
    const modelled = (b: number) =>
      COST_MODEL.kubeRoundTripMs + (b * COST_MODEL.kubeTransferNsPerByte) / 1e6 + (b * COST_MODEL.parseCpuNsPerByte) / 1e6 / cpuShare(1024);
    let previous = 0;
    arrivals.forEach((at, i) => {
      expect(at - previous).toBeLessThanOrEqual(Math.ceil(modelled(bytes[i] + 200)) + 1);
      previous = at;
    });
  }, 60_000);

  it('should fail an invocation whose modelled memory exceeds its size as Lambda does (Runtime.OutOfMemory)', async () => {
    // Act: ~1.7 MB of pods parsed at once (× transientPerByte) on top of the baseline, in a 100 MB function
    const run = await listAsFunction(1000, 100);
    // Assess
    expect(run.outcome).toBe('Runtime.OutOfMemory');
    expect(run.peakMb).toBeGreaterThan(100);
  }, 60_000);
});
