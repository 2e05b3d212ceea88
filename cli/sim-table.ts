/** The simulation as text for people: a timeline of what happened and a summary. */
import { clock } from './report';
import { table } from './render';
import type { SimResultView } from './sim-result';

const SHOW = ['nodeclaim', 'nodepool', 'instance-type', 'zone', 'capacity-type', 'reason', 'node', 'pods'];
/** Routine lines that would drown the story in a table for people (they stay in -o json and the report). */
const ROUTINE = new Set(['garbage collection finished', 'dropping interruption message', 'draining node', 'drained node', 'terminated instance']);

export function renderSimulationTable(r: SimResultView): string {
  const lines: string[] = [];
  lines.push(`Timeline${r.scenario?.name ? ` of ${r.scenario.name}` : ''} (simulated mm:ss):`);
  const rows: { t: number; cells: string[] }[] = [];
  for (const e of r.scenarioEvents ?? []) rows.push({ t: e.t, cells: [clock(e.t), `scenario: ${e.description}`, e.ok ? '' : `failed: ${e.error ?? ''}`] });
  for (const e of r.events) {
    if (ROUTINE.has(e.message) || (e.level && e.level !== 'INFO' && e.level !== 'WARN' && e.level !== 'ERROR')) continue;
    const f = e.fields ?? {};
    const details = SHOW.filter((k) => f[k] !== undefined)
      .map((k) => `${k}=${typeof f[k] === 'object' ? JSON.stringify(f[k]) : String(f[k])}`)
      .join(' ');
    const message = e.message.length > 110 ? `${e.message.slice(0, 107)}...` : e.message;
    rows.push({ t: e.t, cells: [clock(e.t), message, details] });
  }
  rows.sort((a, b) => a.t - b.t);
  lines.push(
    table(
      ['T', 'EVENT', 'DETAILS'],
      rows.map((x) => x.cells),
    ),
  );
  lines.push('', 'Nodes:');
  lines.push(
    table(
      ['NODE', 'TYPE', 'CAPACITY', 'ZONE', 'POOL', 'LAUNCHED', 'READY', 'ENDED', 'REASON'],
      r.nodes.map((n) => [
        n.name,
        n.instanceType,
        n.capacityType,
        n.zone,
        n.nodePool ?? '',
        clock(n.launchedAt),
        n.readyAt != null ? clock(n.readyAt) : '-',
        n.terminatedAt != null ? clock(n.terminatedAt) : '-',
        n.terminationReason ?? '',
      ]),
    ),
  );
  lines.push('', 'Summary:');
  lines.push(
    table(
      ['', ''],
      [
        ['nodes launched', r.nodes.length],
        ['disruptions', r.disruptions.map((d) => `${clock(d.t)} ${d.reason}`).join(', ') || 'none'],
        [
          'pods',
          `${r.pods.total} (pending p50 ${r.pods.pendingSecondsP50}s, p99 ${r.pods.pendingSecondsP99}s, max ${r.pods.maxPendingSeconds}s${launchSummary(r)})`,
        ],
        ['cost', `$${r.cost.total.toFixed(4)} for the run, $${r.cost.perHourAtEnd.toFixed(4)}/h at the end`],
        ['consolidation', consolidationLine(r.consolidation)],
        ...(r.controller ? [['controller', controllerSummary(r.controller.usdPerMonth)]] : []),
        ['violations', `PDB ${r.violations.pdb}, do-not-disrupt ${r.violations.doNotDisrupt}, pods lost ${r.violations.podsLost}`],
        [
          'at the end',
          `${r.final.nodes} nodes, ${r.final.pendingPods} pending pods, ${r.final.orphanInstances} orphan instances, ${r.final.leakedNodeClaims} leaked NodeClaims`,
        ],
      ],
    )
      .split('\n')
      .slice(1)
      .join('\n'),
  );
  if (r.functions && Object.keys(r.functions).length) lines.push('', 'Functions (modelled memory and time, Kubernetes traffic):', functionsTable(r.functions));
  return lines.join('\n');
}

/** One row per function: peak memory / size, longest duration / timeout, requests and KB received a minute. */
function functionsTable(fns: NonNullable<SimResultView['functions']>): string {
  return table(
    ['FUNCTION', 'RUNS', 'PEAK MB / SIZE', 'OOM', 'MAX S / TIMEOUT', 'KUBE REQ/MIN', 'KUBE KB/MIN'],
    Object.entries(fns).map(([k, f]) => [
      k,
      f.invocations,
      `${f.peakMemoryMb} / ${f.memorySizeMb}`,
      f.outOfMemory,
      `${f.maxDurationSeconds.toFixed(1)} / ${f.timeoutSeconds}`,
      f.kubeRequestsPerMinute,
      Math.round(f.kubeBytesReceivedPerMinute / 1024),
    ]),
  );
}

/** "; launch p50 …s, p99 …s, max …s" when the result has launch latencies. */
function launchSummary(r: SimResultView): string {
  const p = r.pods;
  if (p.launchLatencySecondsP50 === undefined) return '';
  if (!p.launchLatencyPods) return '; no launch needed';
  return `; launch p50 ${p.launchLatencySecondsP50}s, p99 ${p.launchLatencySecondsP99}s, max ${p.maxLaunchLatencySeconds}s over ${p.launchLatencyPods} pods`;
}

/** "$…/month (Lambda $…, Step Functions $…, …)": the controller's own AWS bill extrapolated to 30 days. */
function controllerSummary(usd: Record<string, number>): string {
  const label: Record<string, string> = {
    lambdaCompute: 'Lambda compute',
    lambdaRequests: 'Lambda requests',
    stepFunctions: 'Step Functions',
    sqs: 'SQS',
    dynamodb: 'DynamoDB',
    customMetrics: 'metrics',
    logs: 'logs',
    scheduler: 'scheduler',
  };
  const parts = Object.entries(usd)
    .filter(([k, v]) => k !== 'total' && v >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${label[k] ?? k} $${v.toFixed(2)}`);
  return `$${(usd.total ?? 0).toFixed(2)}/month${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** A one-line progress bar on a terminal (stderr), so the table or JSON on stdout stays clean. */
export function progressBar(write: (s: string) => void): { update(t: number, total: number): void; done(): void } {
  let last = -1;
  return {
    update(t, total) {
      const pct = Math.min(100, Math.floor((100 * t) / Math.max(total, 1)));
      if (pct === last) return;
      last = pct;
      const filled = Math.round(pct / 4);
      write(`\r[${'#'.repeat(filled)}${' '.repeat(25 - filled)}] ${String(pct).padStart(3)}%  simulated ${clock(t)} / ${clock(total)}`);
    },
    done() {
      write('\r\x1b[K');
    },
  };
}

/** "$312.40/month saved by 4 moves, 37 pods evicted (11.84 per $100/month)". */
function consolidationLine(c: SimResultView['consolidation']): string {
  if (!c || c.moves === 0) return 'none';
  const moves = `${c.moves} move${c.moves === 1 ? '' : 's'}`;
  const rate = c.evictionsPer100PerMonth === null ? '' : ` (${c.evictionsPer100PerMonth} per $100/month)`;
  return `$${c.savedPerMonth.toFixed(2)}/month saved by ${moves}, ${c.podsEvicted} pods evicted${rate}`;
}
