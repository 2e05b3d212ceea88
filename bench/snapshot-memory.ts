/**
 * `node --import tsx bench/snapshot-memory.ts [pods ...]`: what a whole-cluster read (`KubeClusterClient.snapshot()`,
 * as the provisioner and a disruption pass read it) costs the function that reads it — a new container's listing
 * (peak heap plus array buffers above the idle baseline, CPU time) and the same container's next read, which catches
 * up from where the first stands — against a fake API server (its own process) holding EKS-sized objects.
 * Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import os from 'node:os';
import { KubeClusterClient, kubeConfigForServer } from '../shared/adapters/kubernetes';

async function server(pods: number): Promise<{ url: string; token: string; podBytes: number; nodeBytes: number; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./snapshot-server.ts', import.meta.url).pathname, String(pods)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve) => child.stdout.once('data', (b: Buffer) => resolve(b.toString().trim())));
  const [url, token, podBytes, nodeBytes] = line.split(' ');
  return { url, token, podBytes: Number(podBytes), nodeBytes: Number(nodeBytes), stop: () => child.kill() };
}

const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

async function measure(pods: number) {
  const s = await server(pods);
  try {
    const kc = kubeConfigForServer({ server: s.url, token: s.token });
    await new KubeClusterClient(kc).snapshot(); // warm: connections, code
    (globalThis as { gc?: () => void }).gc?.();
    // A new container's read lists every kind; its next read catches the large kinds up (./warm-snapshot.ts).
    const client = new KubeClusterClient(kc);
    const base = used();
    let peak = base;
    const timer = setInterval(() => (peak = Math.max(peak, used())), 2);
    let received = 0; // response bytes (Content-Length), for the simulator's cost model (shared/sim/runtime/cost.ts)
    const count = (m: unknown) => (received += Number((m as { response?: { headers?: Record<string, string> } }).response?.headers?.['content-length'] ?? 0));
    diagnostics.subscribe('http.client.response.finish', count);
    let cpu = process.cpuUsage();
    const snap = await client.snapshot();
    const listed = process.cpuUsage(cpu);
    clearInterval(timer);
    diagnostics.unsubscribe('http.client.response.finish', count);
    peak = Math.max(peak, used());
    cpu = process.cpuUsage();
    const wall = performance.now();
    await client.snapshot();
    const caughtUp = process.cpuUsage(cpu);
    return {
      pods,
      'pod KB': +(s.podBytes / 1024).toFixed(1),
      'node KB': +(s.nodeBytes / 1024).toFixed(1),
      'peak MB above idle': Math.round((peak - base) / 2 ** 20),
      'list: CPU s': +((listed.user + listed.system) / 1e6).toFixed(2),
      'MB received': Math.round(received / 2 ** 20),
      'peak / byte': +((peak - base) / received).toFixed(2),
      'CPU ns / byte': +(((listed.user + listed.system) * 1000) / received).toFixed(1),
      'next read: CPU s': +((caughtUp.user + caughtUp.system) / 1e6).toFixed(2),
      'next read: wall s': +((performance.now() - wall) / 1000).toFixed(2),
      read: snap.pods.length,
    };
  } finally {
    s.stop();
  }
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const rows = [];
for (const n of sizes.length ? sizes : [10_000, 50_000]) rows.push(await measure(n));
console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, node ${process.version}`);
console.table(rows);
process.exit(0);
