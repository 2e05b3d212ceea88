/**
 * `nodewright sim serve`: the simulated world on (scaled) real time, its fake API server over HTTPS on
 * 127.0.0.1 with a kubeconfig written for kubectl, so a person can `kubectl scale deployment inflate
 * --replicas 5` and watch nodewright launch nodes (`kubectl get nodes,pods,nodepools,nodeclaims`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeKubeconfig } from '../kube/server';
import { localhostTls } from '../kube/tls';
import { settle } from '../clock';
import { applyEvent, applyObjects, deployedFor } from './events';
import { seedFleet } from './fleet';
import type { SimulationEvent } from './result';
import type { Scenario } from './schema';
import { createWorld, type SimWorld } from './world';

export interface InteractiveOptions {
  /** Objects applied at start and timed events fired as time passes (optional: an empty cluster otherwise). */
  scenario?: Scenario;
  kubeconfigPath: string;
  /** Fixed port on 127.0.0.1 (default: ephemeral). */
  port?: number;
  /** Simulated seconds per real second (default 1). */
  speed?: number;
  /** Seconds from launch to a Ready node (default 10: short delays for people watching). */
  nodeStartupSeconds?: number;
  region?: string;
  zones?: string[];
  clusterName?: string;
  seed?: number;
  /** Each nodewright log line as it happens. */
  onEvent?(event: SimulationEvent): void;
  /** The simulated clock's start (epoch ms; default now). */
  startMs?: number;
  /** Port on 127.0.0.1 for Prometheus' /metrics (0: any free port; undefined: no metrics server). */
  metricsPort?: number;
}

export interface InteractiveSession {
  /** https://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<port>/metrics, when a metrics port was asked for. */
  metricsUrl?: string;
  kubeconfigPath: string;
  clusterName: string;
  /** The tags on the simulated subnets and security groups (what an EC2NodeClass's selector terms can match). */
  discoveryTags: [string, string][];
  world: SimWorld;
  /** Simulated seconds since the start. */
  elapsedSeconds(): number;
  stop(): Promise<void>;
}

export async function startInteractive(opts: InteractiveOptions): Promise<InteractiveSession> {
  const s = opts.scenario;
  const region = opts.region ?? s?.region ?? 'us-east-1';
  const clusterName = opts.clusterName ?? s?.clusterName ?? 'nodewright-sim';
  const world = await createWorld({
    clusterName,
    region,
    zones: opts.zones ?? s?.zones ?? ['a', 'b', 'c'].map((z) => `${region}${z}`),
    seed: opts.seed ?? s?.seed ?? 1,
    nodeStartupSeconds: opts.nodeStartupSeconds ?? 10,
    startMs: opts.startMs ?? Date.now(),
    tls: localhostTls(),
    ...(opts.port ? { port: opts.port } : {}),
    ...deployedFor(s?.objects ?? []),
    ...(s?.settings.controllerMemorySize ? { controllerMemorySize: s.settings.controllerMemorySize } : {}),
    onLog: (l) => opts.onEvent?.({ t: l.t, level: l.level, message: l.message, fields: l.fields }),
  });
  // The server checks no token (nodewright's EKS tokens could not be verified locally); kubectl still needs
  // one in its kubeconfig, or it prompts for a username.
  writeKubeconfig(opts.kubeconfigPath, {
    server: world.server.url,
    ...(world.server.caData ? { caData: world.server.caData } : {}),
    token: 'nodewright-sim',
    name: clusterName,
  });
  if (s) {
    applyObjects(world, s.objects);
    await seedFleet(world, s);
    for (const e of s.events) world.clock.at(world.clock.startMs + e.at * 1000, () => void applyEvent(world, s, e));
  }
  const metrics = opts.metricsPort === undefined ? undefined : await serveMetrics(world, opts.metricsPort);
  const speed = Math.max(0.01, opts.speed ?? 1);
  const realStart = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await settle(world.clock, { timeoutMs: 600_000 });
      const target = world.clock.startMs + (Date.now() - realStart) * speed;
      if (world.clock.advance(target)) continue;
      const next = world.clock.nextDue();
      const waitMs = next === undefined ? 200 : Math.min(200, Math.max(1, (next - target) / speed));
      await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
    }
  })();
  return {
    url: world.server.url,
    ...(metrics ? { metricsUrl: metrics.url } : {}),
    kubeconfigPath: opts.kubeconfigPath,
    clusterName,
    discoveryTags: Object.entries(world.ec2.subnets[0]?.tags ?? {}).filter(([k]) => k !== 'Name'),
    world,
    elapsedSeconds: () => world.clock.elapsedSeconds(),
    stop: async () => {
      stopped = true;
      await loop.catch(() => undefined);
      await new Promise<void>((done) => (metrics ? metrics.server.close(() => done()) : done()));
      await world.close();
    },
  };
}

/**
 * Karpenter's metrics as the functions recorded them, in Prometheus' text format on GET /metrics (as Karpenter
 * serves them on :8080), so a Prometheus or Grafana on this machine can scrape the simulator.
 */
async function serveMetrics(world: SimWorld, port: number): Promise<{ server: Server; url: string }> {
  const registry = world.production.prometheus;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    registry.text().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
    );
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => listening());
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics` };
}
