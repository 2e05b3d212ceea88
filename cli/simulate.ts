/** `nodewright simulate SCENARIO.yaml [-o table|json] [--report report.html]`: the whole product on a simulated EKS + EC2. */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReport } from './report';
import { CliUsageError } from './plan';
import { progressBar, renderSimulationTable } from './sim-table';
import { formatLogLine, quietSimulatedSdk, type LogFormat } from './log-lines';

/** `logFormat`: also print nodewright's log lines (to stderr, so `-o json` stays one document on stdout). */
export interface SimulateOptions {
  output: 'table' | 'json';
  /** Replay a running cluster (read through this kubeconfig / context) instead of a scenario file. */
  kubeconfig?: string;
  context?: string;
  /** With --kubeconfig: how long to replay (default 1h). */
  duration?: string;
  report?: string;
  progress?: boolean;
  logFormat?: LogFormat;
}

async function scenarioText(file: string | undefined, opts: SimulateOptions, err: (s: string) => void): Promise<{ text: string; file: string }> {
  if (opts.kubeconfig || opts.context) {
    if (file) throw new CliUsageError('give a scenario file or --kubeconfig / --context (the running cluster), not both');
    const { snapshotCluster } = await import('./snapshot');
    const snapshot = await snapshotCluster({ ...opts, ...(opts.duration ? { duration: opts.duration } : {}) }, err);
    return { text: snapshot.text, file: 'the cluster' };
  }
  if (!file) throw new CliUsageError('give a scenario file (see examples/scenarios/), or --kubeconfig FILE to replay a running cluster');
  try {
    return { text: readFileSync(file, 'utf8'), file };
  } catch (e) {
    throw new CliUsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

export async function simulateFile(
  scenarioFile: string | undefined,
  opts: SimulateOptions,
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const { text, file } = await scenarioText(scenarioFile, opts, err);
  // Loaded on demand: `plan` and `explain` never pay for the simulator's AWS mocks and API server.
  quietSimulatedSdk();
  const { parseScenario, runScenario } = await import('../shared/sim');
  const scenario = parseScenario(text, file);
  const bar = (opts.progress ?? process.stderr.isTTY) ? progressBar(err) : undefined;
  const result = await runScenario(scenario, { onProgress: bar ? (t, total) => bar.update(t, total) : undefined });
  bar?.done();
  if (opts.logFormat) for (const e of result.events) err(formatLogLine(e, opts.logFormat, Date.parse(result.scenario.startedAt)));
  if (opts.report) writeFileSync(opts.report, renderReport(result));
  const { scenarioEvents: _events, invocationErrors, ...json } = result;
  out(opts.output === 'json' ? JSON.stringify({ ...json, invocationErrors }, null, 2) : renderSimulationTable(result));
  if (opts.report) err(`report written to ${opts.report}`);
  return 0;
}
