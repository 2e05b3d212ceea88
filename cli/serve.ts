/**
 * `nodewright sim serve`: the simulated cluster in (scaled) real time, with the fake API server over HTTPS on
 * 127.0.0.1 and a kubeconfig for kubectl — the seeds' workflow (`kubectl scale deployment inflate
 * --replicas 5`, `kubectl get nodes,nodeclaims`) locally, while the production functions react.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliUsageError } from './plan';
import { formatLogLine, quietSimulatedSdk, type LogFormat } from './log-lines';

export interface ServeOptions {
  scenario?: string;
  file?: string;
  kubeconfig: string;
  port?: string;
  speed?: string;
  nodeStartup?: string;
  /** Default nodewright-sim (a --scenario's clusterName wins). */
  clusterName?: string;
  logFormat?: LogFormat;
  metricsPort?: string;
}

/** `--metrics-port`: 8080 as Karpenter by default, 0 for any free port, `off` for none. */
function metricsPort(v: string | undefined): number | undefined {
  if (v === undefined) return 8080;
  if (v === 'off') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliUsageError(`--metrics-port must be a port number (0 for any free port) or off, got ${JSON.stringify(v)}`);
  return n;
}

export async function serveCommand(opts: ServeOptions, out: (s: string) => void): Promise<number> {
  quietSimulatedSdk();
  const { parseScenario, startInteractive } = await import('../shared/sim');
  let scenario;
  if (opts.scenario) {
    let text: string;
    try {
      text = readFileSync(opts.scenario, 'utf8');
    } catch (e) {
      throw new CliUsageError(`cannot read ${opts.scenario}: ${(e as Error).message}`);
    }
    scenario = parseScenario(text, opts.scenario);
  }
  if (opts.file) {
    if (scenario) throw new CliUsageError('give either --scenario or -f, not both');
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch (e) {
      throw new CliUsageError(`cannot read ${opts.file}: ${(e as Error).message}`);
    }
    // Plain manifests (NodePools, EC2NodeClasses, Deployments …) become a scenario that applies them at t=0.
    scenario = parseScenario(
      `name: serve\nclusterName: ${JSON.stringify(opts.clusterName ?? 'nodewright-sim')}\nobjects: |\n${text
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}\n`,
      opts.file,
    );
  }
  const num = (v: string | undefined, name: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new CliUsageError(`${name} must be a positive number, got ${JSON.stringify(v)}`);
    return n;
  };
  const kubeconfigPath = resolve(opts.kubeconfig);
  const format = opts.logFormat ?? 'text';
  const startMs = Date.now();
  const session = await startInteractive({
    scenario,
    kubeconfigPath,
    port: num(opts.port, '--port'),
    speed: num(opts.speed, '--speed'),
    nodeStartupSeconds: num(opts.nodeStartup, '--node-startup'),
    ...(opts.clusterName && !opts.scenario ? { clusterName: opts.clusterName } : {}),
    metricsPort: metricsPort(opts.metricsPort),
    startMs,
    onEvent: (e) => out(formatLogLine(e, format, startMs)),
  });
  banner(session, kubeconfigPath, format, startMs, out);
  await new Promise<void>((done) => {
    const stop = () => {
      void session.stop().then(done);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/** What is served and how to reach it: text lines, or with `--log-format json` one JSON object like every other line. */
function banner(
  session: { url: string; metricsUrl?: string; clusterName: string; discoveryTags: [string, string][] },
  kubeconfigPath: string,
  format: LogFormat,
  startMs: number,
  out: (s: string) => void,
): void {
  if (format === 'json') {
    // Every stdout line is one JSON object, the banner included.
    out(
      formatLogLine(
        {
          t: 0,
          level: 'info',
          message: 'simulator serving',
          fields: {
            url: session.url,
            kubeconfig: kubeconfigPath,
            cluster: session.clusterName,
            discoveryTags: Object.fromEntries(session.discoveryTags),
            ...(session.metricsUrl ? { metrics: session.metricsUrl } : {}),
          },
        },
        format,
        startMs,
      ),
    );
  } else {
    out(`nodewright simulator serving ${session.url}; kubeconfig written to ${kubeconfigPath}`);
    out(`cluster ${session.clusterName}: subnets and security groups tagged ${session.discoveryTags.map(([k, v]) => `${k}=${v}`).join(', ')}`);
    if (session.metricsUrl) out(`Karpenter's metrics (Prometheus text): ${session.metricsUrl}`);
    out(`try:  export KUBECONFIG=${kubeconfigPath}`);
    out('      kubectl get nodepools,nodeclaims,nodes,pods');
    out('      kubectl scale deployment inflate --replicas 5');
    out('Ctrl-C stops the simulation.');
  }
}
